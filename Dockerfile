# ubao: the server (default entrypoint), and the `ubao` clients and engine workers of compose.
FROM python:3.11-slim

RUN useradd --create-home --uid 1000 ubao \
 && mkdir /data && chown ubao:ubao /data
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine engine
COPY protocol protocol
COPY server server
COPY client client
# The cluster extra (redis) too: the same image runs the nodes and workers of the cluster profile.
RUN pip install --no-cache-dir '.[cluster]' && rm -rf /root/.cache

USER ubao
ENV XDG_DATA_HOME=/data PYTHONUNBUFFERED=1
VOLUME /data
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2)"
ENTRYPOINT ["ubao-server"]
CMD ["--host", "0.0.0.0", "--db", "/data/ubao.sqlite3"]

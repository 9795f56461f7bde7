# ubao: the server (default entrypoint), and the `ubao` clients and engine workers of compose.
# Two stages: the full Python image has the C compiler that builds the native engine core
# (setup.py, engine/native); the slim image that runs gets the built wheels, no compiler.
FROM python:3.11 AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY engine engine
COPY protocol protocol
COPY server server
COPY client client
# The cluster extra (redis) too: the same image runs the nodes and workers of the cluster profile.
RUN pip wheel --no-cache-dir --wheel-dir /wheels '.[cluster]'

FROM python:3.11-slim
RUN useradd --create-home --uid 1000 ubao \
 && mkdir /data && chown ubao:ubao /data
COPY --from=build /wheels /wheels
# Bots think in the native core: an image without it would be 30-40x weaker, so it fails here.
RUN pip install --no-cache-dir --no-index --find-links /wheels 'ubao[cluster]' \
 && rm -rf /wheels /root/.cache \
 && ubao-engine --version | grep -q "native core built"

USER ubao
ENV XDG_DATA_HOME=/data PYTHONUNBUFFERED=1
VOLUME /data
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2)"
ENTRYPOINT ["ubao-server"]
CMD ["--host", "0.0.0.0", "--db", "/data/ubao.sqlite3"]

"""`python -m engine` is `ubao-engine`."""

from engine.cli import main

main()

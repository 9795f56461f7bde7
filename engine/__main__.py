"""`python -m ubao.engine` is `ubao-engine`."""

from ubao.engine.tools.cli import main

main()

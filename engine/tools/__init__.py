"""`ubao-engine`'s tools: the command line, the stdio line protocol, the bench and its chart.

They sit apart from the library (rules, search, solver) so that the server and the clients
import no argparse, threads or SVG; nothing in the library imports them.
"""

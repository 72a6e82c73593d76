"""tracelearn: learn automata models of C programs from the programs themselves."""
__version__ = "0.1.0"

"""tracelearn: learn automata models of C programs from the programs themselves.

The commands are also Python functions returning what ``--json`` prints:
``tracelearn.check(...)``, ``tracelearn.run(...)``, ``tracelearn.explain(...)``, ``tracelearn.diff(...)``,
``tracelearn.merge(...)``, ``tracelearn.batch(...)``, ``tracelearn.validate(...)``, ``tracelearn.pac(...)``,
``tracelearn.pac_reuse(...)``, ``tracelearn.learn_filter(...)``, ``tracelearn.filter_property(...)``,
``tracelearn.filter_never_writes(...)``, ``tracelearn.fuse_filters(...)`` (see :mod:`tracelearn.api`).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"


def __getattr__(name: str):
    # Imported on first use: `import tracelearn` stays cheap and the CLI does not
    # pay for z3 before it parses its options. (Not `from . import api`: that asks
    # this module for `api` first, which came back here without end.)
    if name != "api" and not name.startswith("__"):
        api = importlib.import_module(".api", __name__)
        if name in api.__all__:
            return getattr(api, name)
    raise AttributeError(f"module 'tracelearn' has no attribute {name!r}")

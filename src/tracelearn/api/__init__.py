"""The Python API: one function per command, returning the data of its ``--json``.

    import tracelearn
    doc = tracelearn.check("prog.c", bound=4)
    doc["verdict"]          # "false", "true", "true-up-to-bound" or "unknown"

Errors a user can cause raise :class:`tracelearn.errors.TracelearnError`.

Each function's module is imported on first use: a command loads what it runs (the
CLI's imports took 0.40-0.51 s with every command's, 0.35-0.39 s with those of `check`).
No module is named as a function, so importing a module never hides its function.
"""

from __future__ import annotations

import importlib

_HOME = {"check": "checking", "run": "running", "explain": "explaining", "diff": "explaining",
         "merge": "explaining", "batch": "batches", "validate": "validation", "pac": "pac_verification",
         "pac_reuse": "pac_verification", "learn_filter": "streams",
         "filter_property": "filter_properties", "filter_never_writes": "filter_properties",
         "fuse_filters": "fusion"}

__all__ = list(_HOME)


def __getattr__(name: str):
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

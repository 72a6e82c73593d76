"""The Python API: one function per command, returning the data of its ``--json``.

    import tracelearn
    doc = tracelearn.check("prog.c", bound=4)
    doc["verdict"]          # "false", "true", "true-up-to-bound" or "unknown"

Errors a user can cause raise :class:`tracelearn.errors.TracelearnError`.
"""

from __future__ import annotations

from .batch import batch
from .check import check
from .explain import diff, explain, merge
from .pac import pac, pac_reuse
from .run import run
from .streams import filter_property, learn_filter
from .validate import validate

__all__ = ["check", "run", "explain", "diff", "merge", "batch", "validate", "pac", "pac_reuse", "learn_filter", "filter_property"]

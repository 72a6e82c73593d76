"""JSON text of a result document: strict JSON, whatever floats it holds.

Python's ``json`` writes ``NaN`` and ``Infinity``, which are not JSON and which
other tools reject. A non-finite float becomes the string ``"NaN"``,
``"Infinity"`` or ``"-Infinity"`` (the spellings of JavaScript and of
``float()``, so ``float(text)`` reads them back); documents that carry values
also carry their bit patterns, so nothing is lost.
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite(obj: Any) -> Any:
    """``obj`` with every non-finite float replaced by its string spelling."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "NaN" if math.isnan(obj) else ("Infinity" if obj > 0 else "-Infinity")
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def dumps(doc: Any, indent: int | None = 2) -> str:
    """Strict JSON text of ``doc`` (raises ``ValueError`` rather than write NaN)."""
    return json.dumps(finite(doc), indent=indent, allow_nan=False)

"""Text of an error explanation, in the style of Groce & Kroening Figs. 6-7."""

from __future__ import annotations

from ..analyses.causes import Explanation

MAX_SHOWN = 25


def explanation_text(e: Explanation, sources=None) -> str:
    out = []
    if e.distance is None:
        out.append(f"No nearest passing run: {e.note}")
        return "\n".join(out)
    out.append(f"Nearest passing run (distance {e.distance}: values and guards that differ):")
    for c in e.changes:
        out.append(f"  {c.name}: {c.before} -> {c.after}   ({c.loc.file}:{c.loc.line})")
    if e.branches:
        out.append("Branches it takes the other way (where the error is localised):")
        for b in e.branches:
            line = sources(b.loc.file, b.loc.line).strip() if sources else ""
            out.append(f"  {b.loc.file}:{b.loc.line} in {b.function}: {b.condition} is "
                       f"{'true' if b.before else 'false'} in the counterexample, "
                       f"{'true' if b.after else 'false'} in the passing run" + (f"\n      {line}" if line else ""))
    if e.causes:
        out.append("Error is causally dependent on these predicates:")
        for c in e.causes[:MAX_SHOWN]:
            where = ", ".join(sorted({f"{loc.file.rsplit('/', 1)[-1]}:{loc.line}" for loc in c.lines}))
            out.append(f"  {c.text}    ({where})")
        if len(e.causes) > MAX_SHOWN:
            out.append(f"  ... and {len(e.causes) - MAX_SHOWN} more (see --json)")
    else:
        out.append("No causal dependence found among the hypothesised predicates.")
    out.append(f"({e.candidates} predicates checked, {e.solver_calls} solver calls, {e.time_s:.2f}s"
               + ("" if e.complete else f"; {e.note}") + ")")
    return "\n".join(out)

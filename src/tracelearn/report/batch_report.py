"""The tables of a batch: CSV, a text table for the terminal, and a self-contained
HTML page (verdicts, times, memory, the SV-COMP score)."""

from __future__ import annotations

import csv
import html
import io
from dataclasses import asdict, fields
from typing import Any, Sequence

COLUMNS = ("task", "property", "expected", "answer", "status", "score", "verdict", "proved_by", "validation", "wall_s",
           "cpu_s", "memory_mb", "reason")


def batch_csv(rows: Sequence[Any]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    names = [f.name for f in fields(rows[0])] if rows else list(COLUMNS)
    w.writerow(names)
    for r in rows:
        d = asdict(r)
        w.writerow([d[n] if d[n] is not None else "" for n in names])
    return buf.getvalue()


def batch_text(rows: Sequence[Any], summary: dict) -> str:
    table = [[str(getattr(r, c) if getattr(r, c) is not None else "-") for c in COLUMNS[:-1]] for r in rows]
    widths = [max([len(c)] + [len(t[i]) for t in table]) for i, c in enumerate(COLUMNS[:-1])]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    out = [line(COLUMNS[:-1]), line(["-" * w for w in widths])] + [line(t) for t in table]
    out.append("")
    out.append(summary_line(summary))
    return "\n".join(out)


def summary_line(s: dict) -> str:
    return (f"{s['runs']} runs: correct true {s['correct_true']}, correct false {s['correct_false']}, "
            f"wrong true {s['wrong_true']}, wrong false {s['wrong_false']}, unknown {s['unknown']}; "
            f"score {s['score']}; cpu {s['cpu_s']} s, wall {s['wall_s']} s, max memory {s['max_memory_mb']} MB"
            + (f"; witnesses {s['witnesses']}, confirmed {s['witnesses_confirmed']}, "
               f"rejected {s['witnesses_rejected']}" if s.get("witnesses") else ""))


def batch_html(rows: Sequence[Any], summary: dict, title: str = "tracelearn batch") -> str:
    esc = html.escape
    colour = {"correct": "#dff0d8", "wrong": "#f4cccc", "unknown": "#f5f5f5"}
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'>", f"<title>{esc(title)}</title>",
           "<style>body{font-family:sans-serif;margin:2em} table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left} td.n{text-align:right}</style>",
           "</head><body>", f"<h1>{esc(title)}</h1>", f"<p>{esc(summary_line(summary))}</p>",
           "<p>SV-COMP scoring: correct true +2, correct false +1, false alarm -16, missed bug -32, unknown 0.</p>",
           "<table><tr>" + "".join(f"<th>{esc(c)}</th>" for c in COLUMNS) + "</tr>"]
    for r in rows:
        cells = []
        for c in COLUMNS:
            v = getattr(r, c)
            cls = " class='n'" if isinstance(v, (int, float)) else ""
            cells.append(f"<td{cls}>{esc('' if v is None else str(v))}</td>")
        out.append(f"<tr style='background:{colour.get(r.status, '#fff')}'>{''.join(cells)}</tr>")
    out.append("</table></body></html>")
    return "\n".join(out)

"""A small layered drawing of an automaton as SVG, for reports when Graphviz's
`dot` is not installed (with `dot`, its layout is used instead)."""

from __future__ import annotations

import html
import shutil
import subprocess
from collections import deque

from ..automata.dfa import DFA


def graphviz_available() -> bool:
    return shutil.which("dot") is not None


def dot_svg(dot_text: str) -> str | None:
    exe = shutil.which("dot")
    if exe is None:
        return None
    p = subprocess.run([exe, "-Tsvg"], input=dot_text.encode(), capture_output=True, timeout=60)
    if p.returncode != 0:
        return None
    text = p.stdout.decode("utf-8", "replace")
    return text[text.find("<svg"):] if "<svg" in text else None


def simple_svg(dfa: DFA, dominating: set, doomed: set) -> str:
    """States in BFS layers left to right; edges as arcs labelled with their letters."""
    layer = {dfa.initial: 0}
    q = deque([dfa.initial])
    while q:
        s = q.popleft()
        for a in dfa.alphabet:
            t = dfa.transitions.get((s, a))
            if t is not None and t not in layer:
                layer[t] = layer[s] + 1
                q.append(t)
    cols: dict[int, list[int]] = {}
    for s, l in sorted(layer.items()):
        cols.setdefault(l, []).append(s)
    pos = {}
    for l, states in cols.items():
        for i, s in enumerate(states):
            pos[s] = (80 + 170 * l, 70 + 110 * i)
    width = 160 + 170 * max(cols, default=0)
    height = 140 + 110 * max((len(v) for v in cols.values()), default=1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto">'
           '<path d="M0,0 L10,5 L0,10 z"/></marker></defs>']
    groups: dict[tuple[int, int], list[str]] = {}
    for (s, a), t in dfa.transitions.items():
        if s in pos and t in pos:
            groups.setdefault((s, t), []).append(a)
    for (s, t), letters in groups.items():
        (x1, y1), (x2, y2) = pos[s], pos[t]
        marked = any((s, a, t) in dominating for a in letters)
        color = "#0a0" if marked else "#333"
        label = html.escape(", ".join(letters))
        if s == t:
            out.append(f'<path d="M{x1 - 10},{y1 - 22} C{x1 - 30},{y1 - 70} {x1 + 30},{y1 - 70} {x1 + 10},{y1 - 22}" '
                       f'fill="none" stroke="{color}" marker-end="url(#arrow)"/>')
            out.append(f'<text x="{x1}" y="{y1 - 62}" text-anchor="middle">{label}</text>')
            continue
        bend = 30 if (t, s) in groups else 0
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2 - bend
        out.append(f'<path d="M{x1 + 22},{y1} Q{mx},{my} {x2 - 22},{y2}" fill="none" stroke="{color}" '
                   f'stroke-width="{2 if marked else 1}" marker-end="url(#arrow)"/>')
        out.append(f'<text x="{mx}" y="{my - 4}" text-anchor="middle">{label}</text>')
    for s, (x, y) in pos.items():
        fill = "#f4cccc" if s in doomed else "#fff"
        out.append(f'<circle cx="{x}" cy="{y}" r="20" fill="{fill}" stroke="#000"/>')
        if s in dfa.accepting:
            out.append(f'<circle cx="{x}" cy="{y}" r="16" fill="none" stroke="#000"/>')
        out.append(f'<text x="{x}" y="{y + 4}" text-anchor="middle">{s}</text>')
    x, y = pos[dfa.initial]
    out.append(f'<path d="M{x - 60},{y} L{x - 22},{y}" stroke="#000" marker-end="url(#arrow)"/>')
    out.append("</svg>")
    return "\n".join(out)

"""A layered drawing of an automaton (Sugiyama's scheme, small), for reports when
Graphviz is not installed.

States go in columns by breadth-first distance from the initial state. Every edge
that spans more than one column, or goes backwards, is routed through a dummy point
in each column it crosses, so no edge runs through a state; the states and dummies
of each column are ordered by barycentre sweeps (fewer crossings). Edges between
two states of one column bow out to the right of the column, self-loops sit above
their state (label to its right). Parallel edges are one edge with their letters joined. Labels are
placed on their edge's first segment and moved along it, or off it, until they
overlap no state and no other label.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..automata.dfa import DFA

R = 20.0  # state radius
ROW = 80.0  # distance between rows
CHAR_W = 7.0  # width of a label character (12 px sans-serif, approximately)
LABEL_H = 14.0
MAX_LABEL = 32  # longer labels are elided (the full text goes in a tooltip)


@dataclass
class Box:
    x: float  # centre
    y: float
    w: float
    h: float

    def overlaps(self, o: "Box", pad: float = 2.0) -> bool:
        return abs(self.x - o.x) * 2 < self.w + o.w + 2 * pad and abs(self.y - o.y) * 2 < self.h + o.h + 2 * pad


@dataclass
class Edge:
    src: int
    dst: int
    letters: list[str]
    points: list[tuple[float, float]]  # polyline from src's border to dst's border
    label: str
    label_box: Box
    kind: str  # forward | back | same-column | loop


@dataclass
class Layout:
    pos: dict[int, tuple[float, float]]
    edges: list[Edge] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0


def layers_of(dfa: DFA) -> dict[int, int]:
    return {s: len(w) for s, w in dfa.access_words().items()}


def _label(letters: list[str]) -> str:
    text = ", ".join(letters)
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1] + "…"


def layout(dfa: DFA) -> Layout:
    layer = layers_of(dfa)
    groups: dict[tuple[int, int], list[str]] = {}
    for (s, a), t in sorted(dfa.transitions.items(), key=lambda kv: (kv[0][0], kv[1], str(kv[0][1]))):
        if s in layer and t in layer:
            groups.setdefault((s, t), []).append(a)
    ncols = max(layer.values(), default=0) + 1
    # Columns hold states and the dummy points of long and backward edges.
    cols: list[list[object]] = [[] for _ in range(ncols)]
    for s in sorted(layer, key=lambda s: (layer[s], s)):
        cols[layer[s]].append(s)
    chains: dict[tuple[int, int], list[object]] = {}
    for (s, t) in groups:
        ls, lt = layer[s], layer[t]
        if s == t or ls == lt or abs(ls - lt) == 1:
            continue
        step = 1 if lt > ls else -1
        dummies = [("d", s, t, c) for c in range(ls + step, lt, step)]
        for d in dummies:
            cols[d[3]].append(d)
        chains[(s, t)] = dummies
    _order(cols, groups, chains, layer)
    # Column widths leave room for the labels of the segments that leave them.
    widest = [0.0] * ncols
    for (s, t), letters in groups.items():
        if s != t:
            widest[layer[s]] = max(widest[layer[s]], CHAR_W * len(_label(letters)))
    xs, x = [], 60.0
    for c in range(ncols):
        xs.append(x)
        x += max(150.0, widest[c] + 70.0)
    height = max((len(col) for col in cols), default=1)
    at: dict[object, tuple[float, float]] = {}
    for c, col in enumerate(cols):
        top = 70.0 + (height - len(col)) * ROW / 2  # centre short columns
        for i, v in enumerate(col):
            at[v] = (xs[c], top + i * ROW)
    pos = {s: at[s] for s in layer}
    out = Layout(pos)
    placed: list[Box] = [Box(x, y, 2 * R, 2 * R) for x, y in pos.values()]
    for (s, t), letters in groups.items():
        out.edges.append(_route(s, t, letters, layer, at, chains, placed))
    _place_labels(out.edges, placed)
    xs_all = [p[0] for e in out.edges for p in e.points] + [b.x + b.w / 2 for b in placed] + [x for x, _ in pos.values()]
    ys_all = [p[1] for e in out.edges for p in e.points] + [b.y + b.h / 2 for b in placed]
    out.width = max(xs_all, default=0) + 40
    out.height = max(ys_all, default=0) + 40
    return out


def _order(cols: list[list[object]], groups, chains, layer) -> None:
    """Barycentre sweeps, left to right and back, a few times."""
    nbrs: dict[object, list[object]] = {}

    def link(a: object, b: object) -> None:
        nbrs.setdefault(a, []).append(b)
        nbrs.setdefault(b, []).append(a)

    for (s, t) in groups:
        path = [s, *chains.get((s, t), []), t]
        for a, b in zip(path, path[1:]):
            if a != b:
                link(a, b)
    for _ in range(4):
        for rng in (range(1, len(cols)), range(len(cols) - 2, -1, -1)):
            for c in rng:
                ref = {v: i for i, v in enumerate(cols[c - 1 if rng.step == 1 else c + 1])}
                here = {v: i for i, v in enumerate(cols[c])}

                def key(v: object) -> float:
                    ks = [ref[n] for n in nbrs.get(v, []) if n in ref]
                    return sum(ks) / len(ks) if ks else here[v]
                cols[c].sort(key=key)


def _route(s: int, t: int, letters: list[str], layer, at, chains, placed: list[Box]) -> Edge:
    label = _label(letters)
    w, h = CHAR_W * len(label) + 6, LABEL_H
    (x1, y1), (x2, y2) = at[s], at[t]
    if s == t:  # a loop above the state
        pts = [(x1 - 10, y1 - R + 3), (x1 - 22, y1 - R - 26), (x1 + 22, y1 - R - 26), (x1 + 10, y1 - R + 3)]
        box = _free(Box(x1 + 26 + w / 2, y1 - R - 18, w, h), placed, dy=-LABEL_H)
        return Edge(s, t, letters, pts, label, box, "loop")
    if layer[s] == layer[t]:  # same column: bow out to the right
        bulge = x1 + R + 25 + 8 * abs(y2 - y1) / ROW
        pts = [(x1 + R, y1), (bulge, y1 + (y2 - y1) * 0.25), (bulge, y1 + (y2 - y1) * 0.75), (x2 + R, y2)]
        box = _free(Box(bulge + w / 2 + 4, (y1 + y2) / 2, w, h), placed, dy=LABEL_H)
        return Edge(s, t, letters, pts, label, box, "same-column")
    mids = [at[d] for d in chains.get((s, t), [])]
    forward = layer[t] > layer[s]
    sx = x1 + R if forward else x1 - R
    tx = x2 - R if forward else x2 + R
    pts = [(sx, y1), *mids, (tx, y2)]
    # Backward edges run a little below their dummies, so they do not share a line
    # with a forward edge between the same columns.
    if not forward:
        pts = [pts[0]] + [(x, y + 12) for x, y in pts[1:-1]] + [pts[-1]]
        if not mids:  # between neighbouring columns: bend it off the forward edge's line
            pts.insert(1, ((sx + tx) / 2, (y1 + y2) / 2 + 18))
    return Edge(s, t, letters, pts, label, Box(0, 0, w, h), "forward" if forward else "back")


def _place_labels(edges: list[Edge], placed: list[Box]) -> None:
    """Labels of straight edges: on a point of their own edge, beside it, where they
    cover no state, no label and no other edge; failing that, no state and no label."""
    segs = [(e, a, b) for e in edges if e.kind in ("forward", "back") for a, b in zip(e.points, e.points[1:])]
    for e in sorted((e for e in edges if e.kind in ("forward", "back")), key=lambda e: len(e.points)):
        w, h = e.label_box.w, e.label_box.h
        cands = []
        order = sorted(range(len(e.points) - 1), key=lambda i: abs(i - (len(e.points) - 2) / 2))
        for i in order:
            (ax, ay), (bx, by) = e.points[i], e.points[i + 1]
            for frac in (0.5, 0.3, 0.7):
                x, y = ax + (bx - ax) * frac, ay + (by - ay) * frac
                for off in (-(h / 2 + 3), h / 2 + 3, -(h + 6), h + 6):
                    cands.append(Box(x, y + off, w, h))
        free = [c for c in cands if not any(c.overlaps(p) for p in placed)]
        clean = [c for c in free if not any(f is not e and _hits(c, a, b) for f, a, b in segs)]
        box = clean[0] if clean else free[0] if free else _free(cands[0], [], 0)
        placed.append(box)
        e.label_box = box


def _hits(box: Box, a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Does the segment a-b cross ``box``? (sampled: labels are small, segments long)"""
    n = max(2, int(((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) ** 0.5 / 4))
    for k in range(n + 1):
        x, y = a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n
        if abs(x - box.x) * 2 < box.w and abs(y - box.y) * 2 < box.h:
            return True
    return False


def _free(box: Box, placed: list[Box], dy: float) -> Box:
    """``box`` moved by ``dy`` steps until it overlaps nothing placed; then placed."""
    b = box
    for _ in range(60):
        if not any(b.overlaps(p) for p in placed):
            break
        b = Box(b.x, b.y + dy, b.w, b.h)
    placed.append(b)
    return b


def layered_svg(dfa: DFA, dominating: set, doomed: set) -> str:
    """The SVG of :func:`layout` (dominating edges green and bold, doomed states red)."""
    import html

    lay = layout(dfa)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{lay.width:.0f}" height="{lay.height:.0f}" '
           f'font-family="sans-serif" font-size="12">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" '
           'orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>']
    for e in lay.edges:
        marked = any((e.src, a, e.dst) in dominating for a in e.letters)
        color = "#0a0" if marked else "#333"
        d = _path(e)
        full = html.escape(", ".join(e.letters))
        out.append(f'<g><title>{e.src} → {e.dst}: {full}</title>'
                   f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{2 if marked else 1}" '
                   f'marker-end="url(#arrow)"/>'
                   f'<text x="{e.label_box.x:.1f}" y="{e.label_box.y + 4:.1f}" text-anchor="middle" '
                   f'fill="{color}">{html.escape(e.label)}</text></g>')
    for s, (x, y) in lay.pos.items():
        fill = "#f4cccc" if s in doomed else "#fff"
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{R:.0f}" fill="{fill}" stroke="#000"/>')
        if s in dfa.accepting:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{R - 4:.0f}" fill="none" stroke="#000"/>')
        out.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle">{s}</text>')
    x, y = lay.pos[dfa.initial]
    out.append(f'<path d="M{x - 50:.1f},{y:.1f} L{x - R - 2:.1f},{y:.1f}" stroke="#000" marker-end="url(#arrow)"/>')
    out.append("</svg>")
    return "\n".join(out)


def _path(e: Edge) -> str:
    p = e.points
    if e.kind in ("loop", "same-column"):
        return f"M{p[0][0]:.1f},{p[0][1]:.1f} C{p[1][0]:.1f},{p[1][1]:.1f} {p[2][0]:.1f},{p[2][1]:.1f} " \
               f"{p[3][0]:.1f},{p[3][1]:.1f}"
    return "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in p)

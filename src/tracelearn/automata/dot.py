"""Graphviz DOT output, and a reader for the automata pv wrote.

pv's files (``expected_automata/*.dot``) look like::

    node [shape=rectangle, color = green, label= "Dominating edges: f, Learn_Assert"]; dom_edges;
    node [shape=doublecircle, style="", color=green, label = "D"]; q1;
    node [shape=circle, style="", color=green, label = ""]; q0;
    node [shape=plaintext, label="", style=""]; iq0;
    iq0 -> q0 [color=blue];
    q0 -> q1 [label="f", color = green];

States are the circle and doublecircle nodes (doublecircle = accepting); the
initial state is the target of the edge from the invisible ``plaintext`` node; the
``rectangle`` node is a note, not a state. Edge labels are letters (one per edge
in pv's files; ``to_dot`` may merge several, separated by commas, and the reader
splits them again, so letters containing commas do not read back). The sink is already removed: missing transitions reject.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from .analysis import dominating_edges, doomed_states
from .dfa import DFA, Edge

# --------------------------------------------------------------------- writing


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(dfa: DFA, *, name: str = "dfa", hide_dead: bool = True, merge_letters: bool = True,
           mark_dominating: bool = False, mark_doomed: bool = False,
           dominating: Collection[Edge] | None = None, doomed: Collection[int] | None = None,
           state_labels: Mapping[int, str] | None = None, edge_attrs: Mapping[Edge, str] | None = None) -> str:
    """The automaton as a DOT digraph.

    ``hide_dead`` drops states that cannot reach acceptance (the sink), as pv does;
    ``merge_letters`` puts all letters between the same two states on one edge
    (comma separated); ``mark_dominating`` draws dominating edges bold green and
    ``mark_doomed`` fills doomed states (computed unless ``dominating``/``doomed``
    are given). ``edge_attrs`` adds raw DOT attributes to chosen edges."""
    keep = (dfa.live_states() | {dfa.initial}) if hide_dead else set(dfa.states)
    # States keep the caller's numbering in names, so marks and labels refer to ``dfa``.
    edges = [(s, a, t) for s, a, t in dfa.edges() if s in keep and t in keep]
    dom = set(dominating if dominating is not None else (dominating_edges(dfa) if mark_dominating else ()))
    doom = set(doomed if doomed is not None else (doomed_states(dfa) if mark_doomed else ()))
    lines = [f"digraph {_quote(name)} {{", "  rankdir=LR;", '  __init [shape=point, label=""];']
    for q in sorted(keep):
        attrs = [f"shape={'doublecircle' if q in dfa.accepting else 'circle'}"]
        attrs.append(f"label={_quote(state_labels[q] if state_labels and q in state_labels else str(q))}")
        if q in doom:
            attrs.append('style=filled, fillcolor="#f4cccc"')
        lines.append(f"  q{q} [{', '.join(attrs)}];")
    lines.append(f"  __init -> q{dfa.initial};")
    groups: dict[tuple, list[str]] = {}
    for s, a, t in edges:
        marked = (s, a, t) in dom
        extra = edge_attrs.get((s, a, t), "") if edge_attrs else ""
        key = (s, t, marked, extra) if merge_letters else (s, t, marked, extra, a)
        groups.setdefault(key, []).append(a)
    for key, letters in groups.items():
        s, t, marked, extra = key[:4]
        attrs = [f"label={_quote(', '.join(letters))}"]
        if marked:
            attrs.append("color=green, penwidth=2")
        if extra:
            attrs.append(extra)
        lines.append(f"  q{s} -> q{t} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------- reading

_TOKEN = re.compile(r"""
    \s+ | //[^\n]* | /\*.*?\*/ | \#[^\n]*            # blanks and comments
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<arrow>->|--)
  | (?P<punct>[\[\]{};,=:])
  | (?P<id>[^\s\[\]{};,=:"]+)
""", re.X | re.S)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"DOT: cannot read {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.group("str") is not None:
            raw = m.group("str")[1:-1]
            out.append(("id", re.sub(r"\\(.)", lambda x: "\n" if x.group(1) == "n" else x.group(1), raw)))
        elif m.group("arrow") is not None:
            out.append(("->", "->"))
        elif m.group("punct") is not None:
            out.append((m.group("punct"), m.group("punct")))
        elif m.group("id") is not None:
            out.append(("id", m.group("id")))
    return out


@dataclass
class DotGraph:
    """Nodes with their attributes and edges in file order (a small DOT subset)."""
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    edges: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)


def parse_dot(text: str) -> DotGraph:
    """Statements of one (di)graph: ``node``/``edge``/``graph`` defaults, node
    statements, edge chains, ``key=value``; subgraph braces are flattened."""
    toks = _tokens(text)
    g = DotGraph()
    defaults: dict[str, dict[str, str]] = {"node": {}, "edge": {}, "graph": {}}
    i = 0

    def attr_list() -> dict[str, str]:
        nonlocal i
        attrs: dict[str, str] = {}
        while i < len(toks) and toks[i][0] == "[":
            i += 1
            while toks[i][0] != "]":
                if toks[i][0] in (",", ";"):
                    i += 1
                    continue
                key = toks[i][1]
                i += 1
                if toks[i][0] == "=":
                    attrs[key] = toks[i + 1][1]
                    i += 2
                else:
                    attrs[key] = "true"
            i += 1
        return attrs

    # Skip the header: [strict] (di)graph [name] {
    while i < len(toks) and toks[i][0] != "{":
        i += 1
    i += 1
    while i < len(toks):
        kind, val = toks[i]
        if kind in (";", "{", "}", ","):
            i += 1
            continue
        if kind != "id":
            raise ValueError(f"DOT: unexpected {val!r}")
        if val in ("node", "edge", "graph") and i + 1 < len(toks) and toks[i + 1][0] == "[":
            i += 1
            defaults[val] = {**defaults[val], **attr_list()}
            continue
        if val == "subgraph":
            i += 1
            if toks[i][0] == "id":
                i += 1
            continue
        if i + 1 < len(toks) and toks[i + 1][0] == "=":
            i += 3  # graph attribute such as rankdir=LR
            continue
        chain = [val]
        i += 1
        while i < len(toks) and toks[i][0] == ":":  # ports: node:port
            i += 2
        while i < len(toks) and toks[i][0] == "->":
            chain.append(toks[i + 1][1])
            i += 2
            while i < len(toks) and toks[i][0] == ":":
                i += 2
        attrs = attr_list()
        if len(chain) == 1:
            node = g.nodes.get(val)
            g.nodes[val] = {**(node if node is not None else defaults["node"]), **attrs}
        else:
            for n in chain:
                if n not in g.nodes:
                    g.nodes[n] = dict(defaults["node"])
            for a, b in zip(chain, chain[1:]):
                g.edges.append((a, b, {**defaults["edge"], **attrs}))
    return g


@dataclass
class PvAutomaton:
    """A pv automaton: the DFA plus what pv marked in the drawing."""
    dfa: DFA
    state_names: tuple[str, ...]            # DOT node name of each state
    dominating_letters: tuple[str, ...]     # from pv's "Dominating edges" box
    green_states: frozenset[int]            # states pv drew green (its dominator states)
    green_edges: frozenset[Edge]            # edges pv drew green


_STATE_SHAPES = {"circle", "doublecircle"}


def _natural_key(name: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def read_pv_dot(text: str, alphabet: Sequence[str] | None = None) -> PvAutomaton:
    """Read a pv automaton; see the module docstring for the conventions.

    States are numbered in natural order of their node names (``q0, q1, q2, q10``)
    after the sink's number is gone. The alphabet is ``alphabet`` if given (it must
    contain every edge letter), else the letters in order of first appearance."""
    g = parse_dot(text)
    names = sorted((n for n, a in g.nodes.items() if a.get("shape", "ellipse") in _STATE_SHAPES), key=_natural_key)
    index = {n: i for i, n in enumerate(names)}
    if not names:
        raise ValueError("DOT: no circle or doublecircle node (no state)")
    initial: int | None = None
    letters: list[str] = []
    trans: dict[tuple[int, str], int] = {}
    green_edges: set[Edge] = set()
    for src, dst, attrs in g.edges:
        if src not in index:
            if dst in index:  # arrow from the invisible start node
                if initial is not None and initial != index[dst]:
                    raise ValueError("DOT: two initial arrows")
                initial = index[dst]
            continue
        if dst not in index:
            continue
        for a in (x.strip() for x in attrs.get("label", "").replace("\n", ",").split(",")):
            if not a:
                continue
            if a not in letters:
                letters.append(a)
            key = (index[src], a)
            if key in trans and trans[key] != index[dst]:
                raise ValueError(f"DOT: nondeterministic on {a!r} from {src}")
            trans[key] = index[dst]
            if attrs.get("color", "") == "green":
                green_edges.add((index[src], a, index[dst]))
    if initial is None:
        raise ValueError("DOT: no initial arrow (edge from a non-state node)")
    alpha = tuple(alphabet) if alphabet is not None else tuple(letters)
    missing = [a for a in letters if a not in alpha]
    if missing:
        raise ValueError(f"DOT: letters {missing} not in the given alphabet")
    accepting = frozenset(index[n] for n in names if g.nodes[n].get("shape") == "doublecircle")
    dom: tuple[str, ...] = ()
    for n, a in g.nodes.items():
        label = a.get("label", "")
        if n not in index and label.startswith("Dominating edges:"):
            dom = tuple(x.strip() for x in label.split(":", 1)[1].split(",") if x.strip())
    green = frozenset(index[n] for n in names if g.nodes[n].get("color") == "green")
    dfa = DFA(alpha, len(names), initial, accepting, trans)
    return PvAutomaton(dfa, tuple(names), dom, green, frozenset(green_edges))


def parse_pv_dot(text: str, alphabet: Sequence[str] | None = None) -> DFA:
    """The DFA of a pv ``.dot`` file (also reads ``to_dot`` output)."""
    return read_pv_dot(text, alphabet).dfa

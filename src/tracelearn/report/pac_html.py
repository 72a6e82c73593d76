"""A self-contained HTML page of `tracelearn pac`: the verdict with its guarantee and
sampling distribution, a bug's witness (its inputs, and its decision vector letter by
letter, each at its source condition), the learned automaton drawn, the statistics
and the source with its decisions marked."""

from __future__ import annotations

import html
from pathlib import Path

from ..automata.dfa import DFA
from ..automata.dot import to_dot
from .html_report import STYLE, source_and_json
from .layered_layout import layered_svg
from .svg_layout import dot_svg
from .trace_text import value_text

# Past this many states, the page lists the automaton's size instead of a drawing made
# without Graphviz (the built-in layout is for the small automata of explain).
BUILT_IN_DRAWING_STATES = 60


def _site(decision_id: str, file: str, source: list[str]) -> tuple[str, str]:
    """A decision's place (a link to the source's line when it is in ``file``) and
    its line's text."""
    where, line, col = decision_id.rsplit(":", 2)
    col, _, tag = col.partition("#")  # (an assertion made a decision: "#holds")
    n = int(line)
    if where != file or not 0 < n <= len(source):
        return html.escape(decision_id), ""
    return f"<a href='#L{n}'>{n}:{col}</a>" + (f" ({html.escape(tag)})" if tag else ""), source[n - 1].strip()


def _drawing(a: DFA) -> str:
    svg = dot_svg(to_dot(a, name="decisions"))
    if svg is not None:
        return svg
    if a.num_states <= BUILT_IN_DRAWING_STATES:
        return layered_svg(a, set(), set())
    return f"<p>({a.num_states} states: install Graphviz for a drawing)</p>"


def _rows(pairs: list[tuple[str, object]]) -> str:
    esc = html.escape
    return "".join(f"<tr><td>{esc(k)}</td><td>{esc(str(v))}</td></tr>" for k, v in pairs)


def _flat(d: dict, prefix: str = "") -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for k, v in d.items():
        if isinstance(v, dict):
            out += _flat(v, f"{prefix}{k}.")
        else:
            out.append((prefix + k, f"{v:.3f}" if isinstance(v, float) else v))
    return out


def _witness(doc: dict, source: list[str]) -> list[str]:
    esc = html.escape
    w = doc["witness"]
    out = [f"<h2>Bug</h2><p><b>{esc(w['kind'])}</b> at <a href='#L{w['line']}'>{esc(w['file'])}:{w['line']}:"
           f"{w['column']}</a>: {esc(w['message'])}. Found by {esc(w['found_by'])}; replayed in the interpreter: "
           f"<b>{esc(str(w['replay'].get('status')))}</b>.</p>",
           "<h3>Inputs</h3><table><tr><th>#</th><th>origin</th><th>line</th><th>value</th></tr>"]
    for i in w["inputs"]:
        out.append(f"<tr><td>{i['index']}</td><td><code>{esc(i['origin'])}</code></td>"
                   f"<td><a href='#L{i['line']}'>{i['line']}</a></td><td>{esc(value_text(i['value']))}</td></tr>")
    out.append("</table>")
    vector, sites = w["decision_vector"], w.get("decision_sites")
    out.append(f"<h3>Decision vector ({len(vector)} letters)</h3><p><code>{esc(vector)}</code></p>")
    if sites:
        out.append("<table><tr><th>#</th><th>letter</th><th>decision</th><th>condition's line</th></tr>")
        for n, (bit, site) in enumerate(zip(vector, sites)):
            place, text = _site(site, doc["file"], source)
            out.append(f"<tr><td>{n}</td><td>{bit}</td><td>{place}</td><td><code>{esc(text)}</code></td></tr>")
        out.append("</table>")
    return out


def pac_html(doc: dict, automaton: DFA | None, source: list[str]) -> str:
    """The page of ``doc`` (``pac_document``'s), ``automaton`` its model (or last
    conjecture), ``source`` the lines of the file it is about."""
    esc = html.escape
    verdict = doc["verdict"]
    dist = doc["distribution"]
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
           f"<title>tracelearn pac: {esc(Path(doc['file']).name)}</title><style>{STYLE}</style></head><body>",
           f"<h1>PAC verification of {esc(doc['file'])}: {esc(verdict.upper())}</h1>"]
    if doc["guarantee"]:
        out.append(f"<p>Guarantee: {esc(doc['guarantee'])} (epsilon = {doc['epsilon']:g}, confidence delta = "
                   f"{doc['delta']:g}, error probability {doc['error_probability']:.3g}).</p>")
    if doc["reason"]:
        out.append(f"<p>{esc(doc['reason'])}</p>")
    out.append("<h2>Guarantee and sampling distribution</h2><table>" + _rows([
        ("epsilon", doc["epsilon"]), ("delta (confidence)", doc["delta"]),
        ("error probability", f"{doc['error_probability']:.3g}"), ("sampler", dist["strategy"]),
        ("batch k", dist["batch"]), ("seed", dist["seed"]), ("inputs start", dist["start"]),
        ("restart", dist["restart"]), ("decision bound", dist["max_decisions"]),
        ("runs cut at the bound", dist["truncated_runs"]), ("learner", doc["learner"]),
        ("one decision per", doc["decisions"]["per"]), ("decisions in the program", doc["decisions"]["branches"])])
        + "</table>")
    if verdict == "bug" and doc["witness"] is not None:
        out += _witness(doc, source)
    if automaton is not None:
        title = ("Learned automaton of the feasible decision vectors" if verdict == "pac-correct"
                 else "Last conjecture (no guarantee)")
        out += [f"<h2>{title}: {automaton.num_states} states</h2>", _drawing(automaton),
                "<p>Letter 1: the decision's condition held; 0: it did not.</p>"]
    ids = doc["decisions"]["ids"]
    lines: set[int] = set()
    out.append("<h2>Decisions</h2><table><tr><th>decision</th><th>condition's line</th></tr>")
    for d in ids:
        place, text = _site(d, doc["file"], source)
        if text:  # (in the file shown)
            lines.add(int(d.rsplit(":", 2)[1]))
        out.append(f"<tr><td>{place}</td><td><code>{esc(text)}</code></td></tr>")
    out.append("</table><h2>Statistics</h2><table>" + _rows(_flat(doc["stats"])) + "</table>")
    return "\n".join(out + source_and_json(source, lines, doc))

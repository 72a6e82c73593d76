"""A self-contained HTML page of a learned automaton (any ``AutomatonResult``): the
automaton drawn with its marks, each letter linked to its source lines, and the
witness of each edge."""

from __future__ import annotations

import html
from pathlib import Path

from ..automata.dot import to_dot
from .automaton_result import AutomatonResult
from .layered_layout import layered_svg
from .svg_layout import dot_svg
from .jsonout import dumps as json_text

STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 1100px; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
pre.src { background: #f8f8f8; padding: 8px; overflow-x: auto; font-size: 12px; }
pre.src span.hl { background: #fff3b0; }
.dom { color: #080; font-weight: bold; } .doomed { background: #f4cccc; }
code { background: #f2f2f2; padding: 0 3px; }
"""


def automaton_dot(r: AutomatonResult) -> str:
    return to_dot(r.automaton, dominating=r.marked_edges(), doomed=r.marked_states(), hide_dead=False)


def automaton_svg(r: AutomatonResult) -> str:
    return dot_svg(automaton_dot(r)) or layered_svg(r.automaton, r.marked_edges(), set(r.marked_states()))


def html_report(r: AutomatonResult, file: str, doc: dict) -> str:
    esc = html.escape
    lines = r.program.sources.get(file) or (Path(file).read_text(errors="replace").splitlines()
                                            if Path(file).is_file() else [])
    letters = r.letter_table()
    letter_lines = {l.name: sorted({loc.line for loc in l.locs if loc.file == file}) for l in letters}
    hl = {n for v in letter_lines.values() for n in v}
    marked = r.marked_letters()
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
           f"<title>tracelearn: {esc(Path(file).name)}</title><style>{STYLE}</style></head><body>",
           f"<h1>{esc(r.title())}: {esc(file)}</h1>",
           f"<p>{esc(r.summary())}</p>",
           "<h2>Automaton</h2>", automaton_svg(r),
           f"<p>{esc(r.legend())}</p>",
           "<h2>Letters</h2><table><tr><th>letter</th><th>kind</th><th>meaning</th><th>source</th></tr>"]
    for l in letters:
        links = ", ".join(f"<a href='#L{n}'>line {n}</a>" for n in letter_lines.get(l.name, []))
        dom = " class='dom'" if l.name in marked else ""
        out.append(f"<tr><td{dom}>{esc(l.name)}</td><td>{l.kind}</td><td>{esc(l.text)}</td><td>{links}</td></tr>")
    out.append("</table><h2>Witness of each edge</h2><table><tr><th>edge</th><th>shortest word through it</th>"
               "<th>inputs (replay with <code>tracelearn replay</code>)</th></tr>")
    for e in r.edge_witnesses:
        inputs = ", ".join(esc(str(v if not isinstance(v, bytes) else v.hex())) for v in e.inputs)
        out.append(f"<tr><td>{e.source} &rarr; {e.target} on <b>{esc(e.letter)}</b></td>"
                   f"<td>{esc(' · '.join(e.word))}</td><td>{inputs or '<i>none</i>'}</td></tr>")
    out.append("</table><h2>Statistics</h2><table>")
    for k, v in doc["stats"].items():
        out.append(f"<tr><td>{esc(k)}</td><td>{esc(str(v))}</td></tr>")
    out.append("</table>")
    return "\n".join(out + source_and_json(lines, hl, doc))


def source_and_json(lines: list[str], marked: set[int], doc: dict) -> list[str]:
    """A report's end: the source, ``marked`` lines highlighted and each line an
    anchor ``L<n>``, then the result document."""
    esc = html.escape
    out = ["<h2>Source</h2><pre class='src'>"]
    for i, text in enumerate(lines, 1):
        cls = " class='hl'" if i in marked else ""
        out.append(f"<span id='L{i}'{cls}>{i:5d}  {esc(text)}</span>")
    out.append("</pre><h2>JSON</h2><details><summary>the result document</summary><pre>")
    out.append(esc(json_text(doc, indent=1)))
    out.append("</pre></details></body></html>")
    return out

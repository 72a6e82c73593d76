"""A self-contained HTML page of a learned transducer: the drawing (Graphviz, when
installed), the transitions as a table, the separating inputs and the statistics."""

from __future__ import annotations

import html

from ..automata.transducer import Transducer
from .jsonout import dumps as json_text
from .svg_layout import dot_svg
from .html_report import STYLE


def filter_html(doc: dict, t: Transducer) -> str:
    esc = html.escape
    tj = doc["transducer"]
    svg = dot_svg(t.to_dot(doc["function"]))
    rows = "".join(f"<tr><td>q{m['from']}</td><td><code>{esc(m['guard'])}</code></td>"
                   f"<td><code>{esc(', '.join(m['outputs']) or 'ε')}</code></td><td>q{m['to']}</td></tr>"
                   for m in tj["transitions"])
    finals = "".join(f"<tr><td>q{f['state']}</td><td><code>{esc(f['guard'])}</code></td>"
                     f"<td><code>{esc(', '.join(f['outputs']) or 'ε')}</code></td></tr>" for f in tj["final"])
    refs = "".join(f"<li>input <code>{x['input']}</code>: program <code>{x['program_output']}</code>, "
                   f"conjecture ({x['conjecture_states']} states) <code>{x['conjecture_output']}</code></li>"
                   for x in doc["refinements"]) or "<li>none</li>"
    verdict = "complete" if doc["complete"] else "incomplete"
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{esc(doc['function'])}: learned transducer</title>
<style>{STYLE}</style></head><body>
<h1>{esc(doc['file'])}: <code>{esc(doc['function'])}</code> ({verdict})</h1>
<p>{esc(doc['reason'])}</p>
<p>{tj['states']} states, {len(tj['transitions'])} transitions, lookback {tj['lookback']},
{esc(doc['element'])} elements. <code>x</code> is the element read, <code>x[-j]</code> the one j before.</p>
{svg or '<p>(install Graphviz for a drawing)</p>'}
<h2>Transitions</h2>
<table><tr><th>from</th><th>guard</th><th>outputs</th><th>to</th></tr>{rows}</table>
<h2>At the end of the input</h2>
<table><tr><th>state</th><th>guard</th><th>outputs</th></tr>{finals}</table>
<h2>Separating inputs (conjecture refinements)</h2><ul>{refs}</ul>
<h2>Document</h2><pre>{esc(json_text(doc))}</pre>
</body></html>
"""

"""Our AutoEscape filters against ctemplate's own unit tests.

benchmarks/filters/autoescape.c holds C stream filters we wrote after the loops and
guards of ctemplate's src/template_modifiers.cc. This script reads the input/output
vectors of ctemplate's src/tests/template_modifiers_unittest.cc (third-party: restored
by benchmarks/ctemplate/restore.sh under <benchmarks>/ctemplate, never committed) and
runs every vector of a modifier we have through the filter three ways: in tracelearn's
interpreter, compiled by gcc -O2, and through the transducer `learn-filter` learned
(when it was proved complete). A vector is the pair of
`dict.SetEscapedValue(NAME, INPUT, ctemplate::MODIFIER)` and
`EXPECT_STREQ(peer.GetSectionValue(NAME), OUTPUT)`; `prefix_line(INPUT, PREFIX)`
vectors run with the prefix compiled in (-DPREFIX=...), so the transducer learned for
the default prefix is not used there.

    python benchmarks/ctemplate_vectors.py [--benchmarks DIR] [--only html_escape,...] [--show-failures]
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

from tracelearn.analyses.streams.replay import FilterReplay  # noqa: E402
from tracelearn.api.streams import learn_filter_file  # noqa: E402
from tracelearn.errors import TracelearnError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
AUTOESCAPE = ROOT / "benchmarks" / "filters" / "autoescape.c"
UNITTEST = Path("ctemplate") / "src" / "tests" / "template_modifiers_unittest.cc"
MODIFIERS_CC = Path("ctemplate") / "src" / "template_modifiers.cc"
# ctemplate's modifier object -> our filter function
MODIFIERS = {
    "html_escape": "html_escape", "pre_escape": "pre_escape", "snippet_escape": "snippet_escape",
    "cleanse_attribute": "cleanse_attribute", "cleanse_css": "cleanse_css", "xml_escape": "xml_escape",
    "javascript_escape": "javascript_escape", "javascript_number": "javascript_number",
    "json_escape": "json_escape", "url_query_escape": "url_query_escape",
    "validate_url_and_html_escape": "validate_url_and_html_escape",
    "validate_url_and_javascript_escape": "validate_url_and_javascript_escape",
    "validate_url_and_css_escape": "validate_url_and_css_escape",
    "validate_img_src_url_and_html_escape": "validate_img_src_url_and_html_escape",
    "validate_img_src_url_and_javascript_escape": "validate_img_src_url_and_javascript_escape",
    "validate_img_src_url_and_css_escape": "validate_img_src_url_and_css_escape",
    "prefix_line": "prefix_line",
}
# SnippetEscape as it was in June 2010 (commit 8c338f3), against that commit's unit tests
UNITTEST_2010 = Path("ctemplate") / "2010" / "src" / "tests" / "template_modifiers_unittest.cc"
MODIFIERS_2010 = {"snippet_escape": "snippet_escape_2010"}


@dataclass
class Vector:
    modifier: str
    name: str
    input: bytes
    expected: bytes
    arg: bytes | None = None  # prefix_line's prefix


# ------------------------------------------------------------------ C literals

_ESC = {"n": 10, "r": 13, "t": 9, "v": 11, "f": 12, "b": 8, "a": 7, "0": 0, "\\": 92, '"': 34, "'": 39, "?": 63}


def c_string(body: str) -> bytes:
    """The bytes of one C string literal's body (between the quotes)."""
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode()
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "x":  # as many hex digits as follow, as C reads them
            m = re.match(r"[0-9a-fA-F]+", body[i + 2:])
            assert m, body
            out.append(int(m.group(0), 16) & 0xFF)
            i += 2 + len(m.group(0))
        elif nxt in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            assert m
            out.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        else:
            out.append(_ESC[nxt])
            i += 2
    return bytes(out)


_LIT = r'"(?:[^"\\]|\\.)*"'
_LITS = rf"(?:{_LIT}\s*)+"


def literals(text: str) -> bytes:
    """Adjacent C string literals, concatenated."""
    return b"".join(c_string(m.group(0)[1:-1]) for m in re.finditer(_LIT, text))


def value(text: str, variables: dict[str, bytes]) -> bytes | None:
    text = text.strip().strip("()").strip()
    m = re.fullmatch(rf'ctemplate::TemplateString\(\s*({_LITS}),\s*(\d+)\s*\)', text, re.S)
    if m:
        return literals(m.group(1))[:int(m.group(2))]
    if re.fullmatch(_LITS, text + " ", re.S):
        return literals(text)
    return variables.get(text)


def vectors(source: str, modifiers_source: str = "") -> list[Vector]:
    """The (modifier, input, expected output) vectors of the unit-test file; the
    constants the tests name (ValidateUrl's replacement URLs) come from the modifiers'
    source."""
    out: list[Vector] = []
    constants = {f"ctemplate::ValidateUrl::{m.group(1)}": literals(m.group(2))
                 for m in re.finditer(rf'ValidateUrl::(\w+)\s*=\s*({_LITS});', modifiers_source, re.S)}
    # a test is a TEST(...) (the 2010 file: a static method Test...() of a class)
    for test in re.split(r"\nTEST\(|\n\s*static void Test", source)[1:]:
        inputs: dict[str, tuple[str, bytes]] = {}
        variables: dict[str, bytes] = dict(constants)
        for m in re.finditer(rf'const char\*\s+(\w+)\s*=\s*\(?\s*({_LITS})\)?\s*;', test, re.S):
            variables[m.group(1)] = literals(m.group(2))
        for m in re.finditer(rf'SetEscapedValue\(\s*({_LIT})\s*,\s*(.*?),\s*(?:ctemplate::)?(\w+)\s*\)\s*;', test, re.S):
            v = value(m.group(2), variables)
            if v is not None:
                inputs[c_string(m.group(1)[1:-1]).decode()] = (m.group(3), v)
        for m in re.finditer(rf'(?:EXPECT|ASSERT)_STREQ\(\s*peer\.GetSectionValue\(\s*({_LIT})\s*\)\s*,\s*(.*?)\)\s*;', test, re.S):
            name = c_string(m.group(1)[1:-1]).decode()
            want = value(m.group(2), variables)
            if name in inputs and want is not None:
                mod, inp = inputs[name]
                out.append(Vector(mod, name, inp, want))
        for m in re.finditer(rf'EXPECT_STREQ\(\s*ctemplate::prefix_line\(\s*({_LITS}),\s*({_LITS})\)\.c_str\(\)\s*,'
                             rf'\s*({_LITS})\)\s*;', test, re.S):
            inp, arg, want = literals(m.group(1)), literals(m.group(2)), literals(m.group(3))
            out.append(Vector("prefix_line", inp.decode(errors="replace"), inp, want, arg))
    return out


def signed(bs: bytes) -> list[int]:
    return [b - 256 if b > 127 else b for b in bs]


def c_define(arg: bytes) -> str:
    return '"' + "".join(f"\\x{b:02x}" for b in arg) + '"'


def main(argv: list[str] | None = None) -> int:
    root, p = benchmarks_dir(argv, __doc__)
    p.add_argument("--only", help="comma-separated filter functions")
    p.add_argument("--show-failures", action="store_true", help="print each disagreeing vector")
    p.add_argument("--timeout", type=float, default=120.0, help="learn-filter's time limit per filter")
    a = p.parse_args(argv)
    src = root / UNITTEST
    if not src.exists():
        print(f"missing {src}: run benchmarks/ctemplate/restore.sh first", file=sys.stderr)
        return 2
    cc = root / MODIFIERS_CC
    vecs = vectors(src.read_text(), cc.read_text() if cc.exists() else "")
    have = {fn for fn in re.findall(r"^void (\w+)\(void\)", AUTOESCAPE.read_text(), re.M)}
    only = set(a.only.split(",")) if a.only else None
    by_fn: dict[str, list[Vector]] = {}
    missing: dict[str, int] = {}
    for v in vecs:
        fn = MODIFIERS.get(v.modifier)
        if fn is None or fn not in have:
            missing[v.modifier] = missing.get(v.modifier, 0) + 1
            continue
        if only is None or fn in only:
            by_fn.setdefault(fn, []).append(v)
    old = root / UNITTEST_2010
    if old.exists():
        for v in vectors(old.read_text()):
            fn = MODIFIERS_2010.get(v.modifier)
            if fn in have and (only is None or fn in only):
                by_fn.setdefault(fn, []).append(v)
    else:
        print(f"missing {old} (SnippetEscape of 2010): run benchmarks/ctemplate/restore.sh", file=sys.stderr)
    rows, failures = [], []
    for fn, vs in by_fn.items():
        t0 = time.perf_counter()
        try:
            learned = learn_filter_file(str(AUTOESCAPE), function=fn, check=0, timeout=a.timeout)
            t = learned.result.transducer if learned.doc.get("complete") is True else None
            status = "yes" if t is not None else "no: " + learned.doc.get("reason", "")
        except TracelearnError as e:
            msg = str(e)
            t, status = None, ("outside the class: " + msg[msg.find("depends"):] if "outside the class" in msg
                               else f"error: {msg}")
        outcome = {"interpreter": 0, "gcc": 0, "transducer": 0}
        ran_t = 0
        for args in sorted({v.arg for v in vs}, key=lambda x: x or b""):
            group = [v for v in vs if v.arg == args]
            define = {"PREFIX": c_define(args)} if args is not None else {}
            replay = FilterReplay(str(AUTOESCAPE), fn, 8, define=define)
            try:
                gcc = replay.gcc([signed(v.input) for v in group])
                for i, v in enumerate(group):
                    want = signed(v.expected)
                    got = {"interpreter": replay.interpret(signed(v.input)), "gcc": gcc[i] if gcc else None}
                    if t is not None and args is None:
                        got["transducer"] = t.run(signed(v.input))
                        ran_t += 1
                    for how, g in got.items():
                        if g == want:
                            outcome[how] += 1
                        elif g is not None:
                            failures.append((fn, how, v, g))
            finally:
                replay.close()
        rows.append([fn, len(vs), f"{outcome['interpreter']}/{len(vs)}", f"{outcome['gcc']}/{len(vs)}",
                     f"{outcome['transducer']}/{ran_t}" if ran_t else "-",
                     status[:70],
                     f"{time.perf_counter() - t0:.1f}"])
        print(f"  {fn}: {len(vs)} vectors", file=sys.stderr, flush=True)
    print(f"ctemplate unit-test vectors ({src}): {len(vecs)} read, "
          f"{sum(len(v) for v in by_fn.values())} for our filters"
          + (f" (with SnippetEscape's of 2010, {old})" if old.exists() else ""))
    print(table(rows, ["filter", "vectors", "interpreter agrees", "gcc agrees", "transducer agrees",
                       "learned complete", "time s"]))
    if missing:
        print("vectors of modifiers we have no filter for: "
              + ", ".join(f"{k} ({n})" for k, n in sorted(missing.items())))
    if a.show_failures or failures:
        for fn, how, v, got in failures:
            out = bytes(x & 0xFF for x in got)
            print(f"  {fn} [{how}] {v.name!r}: input {v.input!r}\n    expected {v.expected!r}\n    got      {out!r}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""pycparser with error messages that always point at file:line:col, and K&R's
implicit ``int`` return type."""

from __future__ import annotations

import re

from pycparser import c_ast, c_lexer, c_parser

from ..errors import ParseError


class _Lexer(c_lexer.CLexer):
    """GNU C's ``typeof`` spellings (C23's keyword, without C23's others: ``bool``
    and ``true`` stay the identifiers older programs define)."""

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - pycparser's signature
        super().__init__(*args, **kwargs)
        self._keyword_map.update({"typeof": "TYPEOF", "__typeof__": "TYPEOF", "__typeof": "TYPEOF"})


class _Parser(c_parser.CParser):
    def __init__(self) -> None:
        super().__init__(lexer=_Lexer)

    def _parse_error(self, msg, coord):  # noqa: ANN001 - pycparser's signature
        # Some of pycparser's errors name only the file: point at the next token.
        if not hasattr(coord, "line"):
            try:
                tok = self._peek()
                if tok is not None:
                    coord = self._tok_coord(tok)
                    msg = f"{msg} before '{tok.value}'"
            except Exception:  # private API of pycparser: keep its own message
                pass
        super()._parse_error(msg, coord)


def parse_text(text: str, filename: str) -> c_ast.FileAST:
    parser = _Parser()
    for _ in range(1000):
        try:
            return parser.parse(text, filename)
        except c_parser.ParseError as e:
            fixed = _implicit_int(text, str(e))
            if fixed is None:
                _raise_parse_error(e, filename)
            text = fixed
        except (AssertionError, IndexError, AttributeError) as e:
            raise ParseError(f"could not parse: {e}", filename) from None
    raise ParseError("could not parse", filename)


def is_identifier(name: str) -> bool:
    """Is ``name`` a C identifier a program may declare (not a keyword)?"""
    if not (name.isascii() and name.isidentifier()):
        return False
    try:
        parse_text(f"int {name};", "<name>")
    except ParseError:
        return False
    return True


def _implicit_int(text: str, msg: str) -> str | None:
    """K&R ``main(argc, argv) int argc; ...`` has an implicit ``int`` return type,
    which pycparser rejects: insert the ``int`` where it points and parse again."""
    m = re.match(r"^(.*?):(\d+):(\d+): Invalid function definition", msg)
    if not m:
        return None
    want_file, line, col = m.group(1), int(m.group(2)), int(m.group(3))
    lines = text.split("\n")
    cur_file, cur_line = None, 0
    for i, ln in enumerate(lines):
        mm = re.match(r'^#\s*(?:line\s+)?(\d+)\s+"([^"]*)"', ln)
        if mm:
            cur_line, cur_file = int(mm.group(1)), mm.group(2)
            continue
        if cur_file == want_file and cur_line == line:
            c = max(col - 1, 0)
            if ln[c:c + 1].isalpha() or ln[c:c + 1] == "_":
                lines[i] = ln[:c] + "int " + ln[c:]
                return "\n".join(lines)
            return None
        cur_line += 1
    return None


def _raise_parse_error(e: Exception, filename: str) -> None:
    msg = str(e)
    # pycparser says "file:line:col: before: tok"
    m = re.match(r"^(.*?:\d+:\d+): (.*)$", msg)
    where, detail = (m.group(1), m.group(2)) if m else (filename, msg)
    raise ParseError(f"syntax error: {detail[0].lower() + detail[1:] if detail else detail}".strip(), where) from None

"""C preprocessing: the system preprocessor when present, pcpp otherwise.

tracelearn ships its own small libc headers (``include/``): they declare what the
engines model, in plain C. They come first; a header they do not have (``sys/stat.h``,
``libgen.h``, ...) comes from the host's own include directories, searched last
(``-idirafter``), as gcc would find it. The preprocessor says it is GCC 4.2.1 (what
clang says too): real code and glibc's headers then take their GNU paths, and
only GNU C that old. GNU syntax pycparser cannot read and that does not change a
program's meaning (``__attribute__``, ``__extension__``, asm labels, ...) is removed.
"""

from __future__ import annotations

import functools
import io
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ParseError, TracelearnError, UnsupportedError
from ..ir.datamodel import DataModel

INCLUDE_DIR = Path(__file__).parent / "include"

# GNU and compiler-specific syntax pycparser does not accept; removing it does not
# change the meaning of the programs we analyse.
GNU_DEFINES = {
    "__attribute": "__attribute__",
    "__extension__": "",
    "__inline": "inline",
    "__inline__": "inline",
    "__restrict": "",
    "__restrict__": "",
    "restrict": "",
    "__const": "const",
    "__volatile__": "volatile",
    "__volatile": "volatile",
    "__signed__": "signed",
    "__signed": "signed",
    "_Noreturn": "",
    "__builtin_expect(x,y)": "(x)",
    "__PRETTY_FUNCTION__": '"function"',
    "__FUNCTION__": '"function"',
    "__func__": '"function"',
    "__TRACELEARN__": "1",
    "__GNUC__": "4",
    "__GNUC_MINOR__": "2",
    "__GNUC_PATCHLEVEL__": "1",
    "__STDC_HOSTED__": "1",
    "__CHAR_BIT__": "8",
    "__SIZEOF_INT__": "4",
    "__SIZEOF_SHORT__": "2",
    "__SIZEOF_LONG_LONG__": "8",
    "__SIZEOF_FLOAT__": "4",
    "__SIZEOF_DOUBLE__": "8",
}


def model_defines(dm: DataModel) -> dict[str, str]:
    lp64 = dm.ptr_width == 64
    d = {
        "__TL_SIZE_T": "unsigned long",
        "__TL_PTRDIFF_T": "long",
        "__TL_SIZE_MAX": "18446744073709551615UL" if lp64 else "4294967295UL",
        "__TL_LONG_MAX": "9223372036854775807L" if lp64 else "2147483647L",
        "__TL_ULONG_MAX": "18446744073709551615UL" if lp64 else "4294967295UL",
        "__SIZEOF_LONG__": "8" if lp64 else "4",
        "__SIZEOF_POINTER__": "8" if lp64 else "4",
        # gcc's predefined type and limit macros, which system headers use
        "__SIZE_TYPE__": "long unsigned int" if lp64 else "unsigned int",
        "__PTRDIFF_TYPE__": "long int" if lp64 else "int",
        "__INTPTR_TYPE__": "long int" if lp64 else "int",
        "__UINTPTR_TYPE__": "long unsigned int" if lp64 else "unsigned int",
        "__INTMAX_TYPE__": "long int" if lp64 else "long long int",
        "__UINTMAX_TYPE__": "long unsigned int" if lp64 else "long long unsigned int",
        "__WCHAR_TYPE__": "int",
        "__WINT_TYPE__": "unsigned int",
        "__CHAR16_TYPE__": "short unsigned int",
        "__CHAR32_TYPE__": "unsigned int",
        "__SIZEOF_SIZE_T__": "8" if lp64 else "4",
        "__SIZEOF_PTRDIFF_T__": "8" if lp64 else "4",
        "__SIZEOF_WCHAR_T__": "4",
        "__SIZEOF_WINT_T__": "4",
        "__SCHAR_MAX__": "0x7f",
        "__SHRT_MAX__": "0x7fff",
        "__INT_MAX__": "0x7fffffff",
        "__LONG_MAX__": "0x7fffffffffffffffL" if lp64 else "0x7fffffffL",
        "__LONG_LONG_MAX__": "0x7fffffffffffffffLL",
        "__WCHAR_MAX__": "0x7fffffff",
        "__WCHAR_MIN__": "(-0x7fffffff - 1)",
        "__SIZE_MAX__": "0xffffffffffffffffUL" if lp64 else "0xffffffffU",
        "__PTRDIFF_MAX__": "0x7fffffffffffffffL" if lp64 else "0x7fffffff",
        "__ORDER_LITTLE_ENDIAN__": "1234",
        "__ORDER_BIG_ENDIAN__": "4321",
        "__ORDER_PDP_ENDIAN__": "3412",
        "__BYTE_ORDER__": "1234",
        "__FLOAT_WORD_ORDER__": "1234",
        **_int_type_macros(lp64),
        "__STDC_NO_VLA__": "1",  # true of tracelearn: headers then declare no VLA parameters
        "__STDC_NO_COMPLEX__": "1",
    }
    if lp64:
        d.update({"__x86_64__": "1", "__x86_64": "1", "__LP64__": "1", "_LP64": "1"})
    else:
        d.update({"__i386__": "1", "__i386": "1", "__ILP32__": "1"})
    return d


def _int_type_macros(lp64: bool) -> dict[str, str]:
    """gcc's __INT8_TYPE__, __INT_LEAST16_TYPE__, __UINT_FAST32_TYPE__, ... (x86)."""
    i64 = "long int" if lp64 else "long long int"
    fast = "long int" if lp64 else "int"
    exact = {8: "signed char", 16: "short int", 32: "int", 64: i64}
    fasts = {8: "signed char", 16: fast, 32: fast, 64: i64}
    out = {}
    for bits in (8, 16, 32, 64):
        for kind, table in (("", exact), ("_LEAST", exact), ("_FAST", fasts)):
            t = table[bits]
            out[f"__INT{kind}{bits}_TYPE__"] = t
            out[f"__UINT{kind}{bits}_TYPE__"] = "unsigned char" if t == "signed char" else "unsigned " + t
    return out


@dataclass
class Preprocessed:
    text: str
    tool: str
    dollar_renamed: bool = False
    warnings: list[str] = field(default_factory=list)


@functools.lru_cache(maxsize=None)
def host_include_dirs(cpp: str) -> tuple[str, ...]:
    """The host compiler's own ``#include <...>`` search list (empty if it has none);
    asked once per process (a program of twenty units would ask twenty times)."""
    args = [cpp, "-E", "-Wp,-v", "-x", "c", "-"] if Path(cpp).name != "cpp" else [cpp, "-v", "-x", "c", "-"]
    try:
        proc = subprocess.run(args, input="", capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ()
    dirs, inside = [], False
    for line in proc.stderr.splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside and line.startswith(" "):
            d = line.strip().removesuffix(" (framework directory)")
            if Path(d).is_dir():
                dirs.append(d)
    return tuple(dirs)


def find_cpp() -> str | None:
    for name in ("cpp", "gcc", "clang"):
        path = shutil.which(name)
        if path:
            return path
    return None


def preprocess(
    path: str,
    dm: DataModel,
    include_dirs: list[str] | None = None,
    defines: dict[str, str] | None = None,
    use_system_cpp: bool = True,
    pre_includes: list[str] | None = None,
) -> Preprocessed:
    source = Path(path)
    if not source.is_file():
        raise TracelearnError(f"{path} is a folder, not a C file" if source.is_dir() else f"no such file: {path}")
    macros = dict(GNU_DEFINES)
    macros.update(model_defines(dm))
    macros.update(defines or {})
    dirs = [str(INCLUDE_DIR)] + list(include_dirs or [])
    cpp = find_cpp() if use_system_cpp else None
    if cpp:
        after = host_include_dirs(cpp)
        if after and dm.ptr_width == 64:
            # the host is x86-64 (LP64): a bundled header may defer to the host's
            macros["__TL_HOST_DATA_MODEL"] = "1"
        text, tool = _run_cpp(cpp, source, macros, dirs, pre_includes or [], after), Path(cpp).name
    else:
        text, tool = _run_pcpp(source, macros, dirs, pre_includes or []), "pcpp"
    text, renamed = rename_dollars(text)
    text = strip_asm_labels(text)
    text = strip_attributes(text)
    return Preprocessed(text, tool, renamed)


_ATTR = re.compile(r"\b__attribute__\s*\(")
_MARKER = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"([^"]*)"', re.M)


def strip_attributes(text: str) -> str:
    """Remove GNU ``__attribute__((...))``: they do not change the meaning of the
    programs we analyse, except ``packed``, which changes struct layout and is refused
    (``#pragma pack`` is supported)."""
    out = []
    pos = 0
    for m in _ATTR.finditer(text):
        if m.start() < pos:
            continue
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        body = text[m.end():i - 1]
        if re.search(r"\b_*packed_*\b", body):
            raise UnsupportedError("unsupported construct: __attribute__((packed)) (use #pragma pack)",
                                   where_in_preprocessed(text, m.start()))
        out.append(text[pos:m.start()])
        out.append(" " * 0)
        pos = i
    out.append(text[pos:])
    return "".join(out)


def where_in_preprocessed(text: str, offset: int) -> str:
    """file:line:col of an offset of preprocessed text, from its line markers."""
    file, line = "<input>", 1
    line_start = text.rfind("\n", 0, offset) + 1
    for m in _MARKER.finditer(text, 0, line_start):
        file, line = m.group(2), int(m.group(1)) - 1
        marker_end = m.end()
        line += text.count("\n", marker_end, line_start)
    return f"{file}:{line}:{offset - line_start + 1}"


SOURCE_ENCODING = "latin-1"


def _run_cpp(cpp: str, source: Path, macros: dict[str, str], dirs: list[str], pre: list[str],
             after: tuple[str, ...]) -> str:
    args = [cpp, "-E", "-undef", "-nostdinc", "-std=gnu11"]
    if Path(cpp).name in ("gcc", "clang"):
        args += ["-x", "c"]
    for d in dirs:
        args += ["-I", d]
    for d in after:
        args += ["-idirafter", d]
    for k, v in macros.items():
        args.append(f"-D{k}={v}")
    for f in pre:
        args += ["-include", f]
    args.append(str(source))
    # Sources are bytes: latin-1 maps each byte to one character and back, so a
    # literal's non-UTF-8 bytes reach the program unchanged (as gcc keeps them).
    proc = subprocess.run(args, capture_output=True, text=True, encoding=SOURCE_ENCODING)
    if proc.returncode != 0:
        raise ParseError(_first_cpp_error(proc.stderr, source))
    return proc.stdout


def _first_cpp_error(stderr: str, source: Path) -> str:
    for line in stderr.splitlines():
        m = re.match(r"^(.*?):(\d+):(\d+): (?:fatal )?error: (.*)$", line)
        if m:
            return f"{m.group(1)}:{m.group(2)}:{m.group(3)}: preprocessor: {m.group(4)}"
    return f"{source}: preprocessor failed: {stderr.strip().splitlines()[-1] if stderr.strip() else 'unknown error'}"


def _run_pcpp(source: Path, macros: dict[str, str], dirs: list[str], pre: list[str]) -> str:
    from pcpp import Preprocessor  # optional path: only when no system cpp exists

    errors: list[str] = []

    class _Quiet(Preprocessor):
        def on_error(self, file, line, msg):  # noqa: ANN001 - pcpp's signature
            errors.append(f"{file}:{line}:0: preprocessor: {msg}")

    pp = _Quiet()
    pp.assume_encoding = SOURCE_ENCODING
    pp.line_directive = "#"
    for d in dirs:
        pp.add_path(d)
    for k, v in macros.items():
        pp.define(f"{k} {v}")
    first = "".join(f'#include "{f}"\n' for f in pre)
    pp.parse(first + source.read_text(encoding=SOURCE_ENCODING), str(source))
    out = io.StringIO()
    pp.write(out)
    if errors:
        raise ParseError(errors[0])
    return out.getvalue()


_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[A-Za-z_$][A-Za-z0-9_$]*|\n|.', re.S)
DOLLAR = "__S__"


def rename_dollars(text: str) -> tuple[str, bool]:
    """Identifiers with ``$`` (goto-instrument dumps use them) become ``__S__``.

    Only identifiers are touched, never string or character literals."""
    if "$" not in text:
        return text, False
    out = []
    changed = False
    for m in _TOKENS.finditer(text):
        tok = m.group(0)
        if "$" in tok and tok[0] not in "\"'":
            tok = tok.replace("$", DOLLAR)
            changed = True
        out.append(tok)
    return "".join(out), changed


def display_name(name: str) -> str:
    return name.replace(DOLLAR, "$")


_ASM_WORDS = {"asm", "__asm", "__asm__"}
_ASM_QUALIFIERS = {"volatile", "__volatile__", "__volatile", "goto", "inline", "__inline", "__inline__"}


def strip_asm_labels(text: str) -> str:
    """Remove asm labels of declarations; refuse inline assembly.

    ``int f(void) __asm__("g");`` and ``register int r __asm__("eax");`` only rename a
    symbol or pin a register (glibc's headers are full of them): removed. Every other
    ``asm``/``__asm__`` is inline assembly, whose effect tracelearn cannot know: one
    clear error, never a silently wrong verdict."""
    if "asm" not in text:
        return text
    spans: list[tuple[int, int]] = []  # asm labels to remove
    depth = 0
    prev = ""  # previous significant token
    line_start = True
    in_marker = False
    toks = list(_TOKENS.finditer(text))
    i = 0
    while i < len(toks):
        m = toks[i]
        tok = m.group(0)
        i += 1
        if tok == "\n":
            line_start, in_marker = True, False
            continue
        if tok.isspace():
            continue
        if line_start and tok == "#":
            in_marker = True  # a line marker or #pragma: not C tokens
        line_start = False
        if in_marker:
            continue
        if tok in _ASM_WORDS:
            j = i
            while j < len(toks) and (toks[j].group(0).isspace() or toks[j].group(0) in _ASM_QUALIFIERS):
                j += 1
            if j < len(toks) and toks[j].group(0) == "(":
                end = _close_paren(toks, j)
                body = [t.group(0) for t in toks[j + 1:end] if not t.group(0).isspace()]
                label = body and all(t.startswith('"') for t in body) and j == _skip_space(toks, i)
                declarator = prev[:1].isalpha() or prev[:1] == "_" or prev == "]" or (prev == ")" and depth == 0)
                if label and declarator and prev not in _STATEMENT_WORDS:
                    spans.append((m.start(), toks[end].end()))
                    i = end + 1
                    continue
                raise UnsupportedError("unsupported construct: inline assembly", where_in_preprocessed(text, m.start()))
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
        prev = tok
    if not spans:
        return text
    out, pos = [], 0
    for a, b in spans:
        out.append(text[pos:a])
        pos = b
    out.append(text[pos:])
    return "".join(out)


_STATEMENT_WORDS = {"else", "do", "return", "case", "default"}


def _skip_space(toks: list, i: int) -> int:
    while i < len(toks) and toks[i].group(0).isspace():
        i += 1
    return i


def _close_paren(toks: list, j: int) -> int:
    depth = 0
    for k in range(j, len(toks)):
        t = toks[k].group(0)
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if depth == 0:
                return k
    return len(toks) - 1

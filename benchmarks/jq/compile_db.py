"""Writes compile_commands.json for a jq source tree of 2015 (what `./configure &&
make` would compile on x86-64 Linux without Oniguruma), and its version.h: the
translation units of the jq binary, with the macros configure would define."""

from __future__ import annotations

import json
import sys
from pathlib import Path

# The jq binary: libjq's units, main.c and the test runner (Makefile.am), the
# parser and lexer as the repository ships them generated.
UNITS = ["locfile.c", "bytecode.c", "compile.c", "execute.c", "builtin.c", "jv.c", "jv_parse.c", "jv_print.c",
         "jv_dtoa.c", "jv_unicode.c", "jv_aux.c", "jv_file.c", "jv_alloc.c", "jq_test.c", "util.c", "linker.c",
         "parser.c", "lexer.c", "main.c"]
# configure.ac's checks as they come out on glibc x86-64 (the math builtins of libm.h
# are left out: neither build has them, so both offer the same jq).
DEFINES = ["IEEE_8087", "HAVE_MKSTEMP", "HAVE_ISATTY", "HAVE_STRFTIME", "HAVE_STRPTIME", "HAVE_TIMEGM",
           "HAVE_GMTIME_R", "HAVE_GMTIME", "HAVE_GETTIMEOFDAY", "HAVE_MEMMEM", "_GNU_SOURCE"]


def main(root: str) -> None:
    src = Path(root).resolve()
    (src / "version.h").write_text('#define JQ_VERSION "1.5rc2-tracelearn"\n')
    units = [u for u in UNITS if (src / u).exists()]
    db = [{"directory": str(src), "file": u,
           "arguments": ["cc", "-c", "-I."] + [f"-D{d}" for d in DEFINES] + ["-o", u[:-2] + ".o", u]}
          for u in units]
    (src / "compile_commands.json").write_text(json.dumps(db, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])

"""Filter fusion for learned stream filters: a pipeline of two filters of
benchmarks/filters/autoescape.c (G reading what F writes) learned as one transducer
and written back as one C filter (``fuse_filters``, ``tracelearn fuse``), against the
two filters' own C code chained, both compiled by gcc -O2.

Per pair F -> G: whether the fused transducer was learned complete (proved equal to
the pipeline), its states, the learning time, the random inputs on which the fused
filter was compared with the two filters chained in the interpreter (``--check``,
half the elements from the guards' constants) and whether they disagreed; then the
time of the pipeline's C code and of the fused filter's on one input of
``--elements`` elements (half of them drawn from the fused transducer's guard
constants and their neighbours, half uniformly random signed chars), the speed-up
(pipeline / fused), and whether both give the same outputs (count and hash).

What is timed (inside the program, CLOCK_MONOTONIC, the best of ``--runs``, without
file I/O): the input is read as signed chars and widened to an ``int`` array before
the clock starts, and every filter reads an ``int`` array through the same
``tl_in``/``tl_peek``/``tl_eof`` (a read at the end stops it) and writes an ``int``
array through ``tl_out``. The pipeline: F's own C code from the input into an
intermediate ``int`` buffer, then G's own C code from that buffer into the output
(the stream between them carries C ints, tl_out's type). The fused filter: its C
code from the same input into the output. The element type is ``char`` (signed
8-bit), as the filters of autoescape.c read.

    python benchmarks/filter_fusion.py [--only F:G,F2:G2] [--check 10000] [--elements 20000000] [--runs 3]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import best_of, table  # noqa: E402

from tracelearn.analyses.streams.cgen import transducer_filter  # noqa: E402
from tracelearn.analyses.streams.teacher import constants_of  # noqa: E402
from tracelearn.api.fusion import fuse_filters  # noqa: E402
from tracelearn.automata.transducer import Transducer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
AUTOESCAPE = ROOT / "benchmarks" / "filters" / "autoescape.c"
INCLUDE = ROOT / "src" / "tracelearn" / "frontend" / "include"
# (F, G): G reads what F writes; each fusion learns complete
PAIRS = [("prefix_line", "html_escape"), ("html_escape", "prefix_line"), ("cleanse_css", "json_escape"),
         ("cleanse_attribute", "html_escape")]

# The filters' own code and the fused filter's on int arrays (a read at the end stops
# a filter: longjmp), and a driver timing one mode: 0 the pipeline (F into an
# intermediate buffer, then G from it), 1 the fused filter.
DRIVER = r"""
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tracelearn.h>
static const int *__in; static long __n, __pos; static int *__out; static long __no; static jmp_buf __stop;
int tl_eof(void) { return __pos >= __n; }
int tl_peek(int k) { if (__pos >= __n) longjmp(__stop, 1); return __in[__pos]; }
int tl_in(void) { int c = tl_peek(0); __pos++; return c; }
void tl_out(int c) { __out[__no++] = c; }
#include "FILTER_FILE"
#include "FUSED_FILE"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    int mode = atoi(argv[2]);
    long cap = atol(argv[3]);
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    signed char *raw = malloc(n + 1); if (fread(raw, 1, n, f) != (size_t)n) return 2; fclose(f);
    int *in = malloc(sizeof(int) * (n + 1));
    for (long i = 0; i < n; i++) in[i] = raw[i];  /* the elements as ints, before timing */
    int *mid = mode == 0 ? malloc(sizeof(int) * cap) : NULL, *out = malloc(sizeof(int) * cap);
    for (long i = 0; i < cap; i += 1024) { out[i] = 0; if (mid) mid[i] = 0; }  /* pages touched before timing */
    long k = 0, m = 0;
    double t0 = now();
    if (mode == 0) {
        __in = in; __n = n; __pos = 0; __out = mid; __no = 0; if (!setjmp(__stop)) F_FUNCTION(); k = __no;
        __in = mid; __n = k; __pos = 0; __out = out; __no = 0; if (!setjmp(__stop)) G_FUNCTION(); m = __no;
    } else {
        __in = in; __n = n; __pos = 0; __out = out; __no = 0; if (!setjmp(__stop)) FUSED_FUNCTION(); m = __no;
    }
    double t1 = now();
    if (k > cap || m > cap) { fprintf(stderr, "more outputs than the buffer holds\n"); return 3; }
    unsigned long long h = 1469598103934665603ULL;
    for (long i = 0; i < m; i++) h = (h ^ (unsigned)out[i]) * 1099511628211ULL;
    printf("%.6f %ld %llu\n", t1 - t0, m, h);
    return 0;
}
"""
PLACEHOLDERS = ("FILTER_FILE", "FUSED_FILE", "F_FUNCTION", "G_FUNCTION", "FUSED_FUNCTION")


def identifiers(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", text))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", help="comma-separated pairs F:G (G after F)")
    p.add_argument("--check", type=int, default=10_000,
                   help="random inputs on which the fused filter is compared with the pipeline (default 10000)")
    p.add_argument("--elements", type=int, default=20_000_000)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--name", default="fused", help="the fused filter's C function (default fused)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds to learn each fusion (default 300)")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    if shutil.which("gcc") is None:
        print("gcc not found", file=sys.stderr)
        return 1
    pairs = PAIRS
    if a.only:
        pairs = [tuple(s.split(":", 1)) for s in a.only.split(",")]
        if any(len(q) != 2 for q in pairs):
            p.error("--only takes pairs F:G")
    taken = identifiers(AUTOESCAPE.read_text()) | identifiers(DRIVER) - set(PLACEHOLDERS)
    if not a.name.isidentifier() or a.name in taken:
        p.error(f"--name {a.name!r} is not a C identifier or is a name of {AUTOESCAPE.name} or of the driver")
    rows = []
    work = Path(tempfile.mkdtemp(prefix="tracelearn-fusion-"))
    for fn, gn in pairs:
        label = f"{fn} -> {gn}"
        marks = {"start": time.perf_counter()}

        def progress(msg: str) -> None:
            if msg.startswith("comparing"):
                marks["learned"] = time.perf_counter()

        doc, text = fuse_filters(str(AUTOESCAPE), function=fn, with_function=gn, name=a.name, check=a.check,
                                 seed=a.seed, timeout=a.timeout, progress=progress)
        end = time.perf_counter()
        learn = marks.get("learned", end) - marks["start"]
        d = doc["differential"]
        states = doc["transducer"]["states"] if doc["transducer"] else "-"
        head = [label, "yes" if doc["complete"] else "no", states, f"{learn:.1f}",
                f"{d['inputs']:,}" if d else "-", ("NONE" if d["disagreement"] is None else "YES") if d else "-"]
        if not doc["complete"] or text is None or doc["transducer"]["element_bits"] != 8:
            rows.append(head + ["-", "not learned complete: " + doc.get("reason", "")[:40], "", "", ""])
            continue
        t = Transducer.from_json(doc["transducer"])
        if transducer_filter(t, a.name) != text:
            raise RuntimeError(f"{label}: the transducer read back from the document is not the fused filter's")
        rng = random.Random(a.seed)
        pool = sorted({(c + e + 128) % 256 - 128 for c in constants_of(t) for e in (-1, 0, 1)})
        data = bytes((rng.choice(pool) if pool and rng.random() < 0.5 else rng.randint(-128, 127)) % 256
                     for _ in range(a.elements))
        (work / "input.bin").write_bytes(data)
        stem = f"{fn}_{gn}"
        (work / f"{stem}_{a.name}.c").write_text(text)
        driver = DRIVER.replace("FILTER_FILE", str(AUTOESCAPE)).replace("FUSED_FILE", str(work / f"{stem}_{a.name}.c"))
        driver = driver.replace("FUSED_FUNCTION", a.name).replace("F_FUNCTION", fn).replace("G_FUNCTION", gn)
        (work / f"{stem}_main.c").write_text(driver)
        exe = work / stem
        subprocess.run(["gcc", "-O2", "-fwrapv", "-w", "-idirafter", str(INCLUDE), "-o", str(exe),
                        str(work / f"{stem}_main.c")], check=True)
        # outputs at most an element: 16 (as filter_parallel.py), or the fused transducer's most a step
        most = max([len(m["outputs_smt"]) for m in doc["transducer"]["transitions"] + doc["transducer"]["final"]]
                   + [16])
        cap = most * a.elements + len(t.initial_output) + most + 64

        def timed(mode: int) -> tuple[float, str]:
            return best_of([str(exe), str(work / "input.bin"), str(mode), str(cap)], a.runs)

        pipe, want = timed(0)
        fused, got = timed(1)
        rows.append(head + [f"{a.elements:,}", f"{pipe * 1000:.0f}", f"{fused * 1000:.0f}", f"{pipe / fused:.2f}x",
                            "yes" if got == want else "NO"])
    heads = ["pipeline F -> G", "complete", "states", "learn [s]", "inputs compared", "disagreement", "elements",
             "pipeline C [ms]", "fused C [ms]", "speed-up", "same outputs"]
    print(f"Filter fusion, fused transducer vs the two filters chained, gcc -O2, best of {a.runs}\n"
          + table(rows, heads))
    shutil.rmtree(work, ignore_errors=True)
    return 0 if all(r[5] != "YES" and r[-1] in ("yes", "") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Data-parallel code for learned stream filters (Sigma*'s parallelisation): each
learned transducer written as C on arrays (``cgen.array_source``: one chunk per
thread, every chunk but the first run from every state at once until the runs meet,
then stitched; where each state has one successor whatever the input, as base64's
phase, each chunk from the state its position gives), against the filter's own C code,
both compiled by gcc -O2.

Per filter: the elements of one input (half of them drawn from the guards' constants
and their neighbours), the time of the filter's C code (its ``tl_in``/``tl_out`` on
arrays), of the transducer's sequential code and of its parallel code on 1..N
threads (the best of ``--runs``, measured inside the program, without I/O), the
speed-up of the parallel code over the filter's own code, and whether all outputs
are equal (count and hash).

    python benchmarks/filter_parallel.py [--only f,g] [--elements 20000000] [--threads 2] [--runs 3]
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import best_of, table  # noqa: E402

from tracelearn.analyses.streams.cgen import array_source  # noqa: E402
from tracelearn.analyses.streams.teacher import constants_of  # noqa: E402
from tracelearn.api.streams import learn_filter_file  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
AUTOESCAPE = ROOT / "benchmarks" / "filters" / "autoescape.c"
CODECS = ROOT / "tests" / "c" / "streams" / "codecs.c"
INCLUDE = ROOT / "src" / "tracelearn" / "frontend" / "include"
FILTERS = [(AUTOESCAPE, "html_escape"), (AUTOESCAPE, "prefix_line"), (AUTOESCAPE, "cleanse_attribute"),
           (AUTOESCAPE, "javascript_escape"), (CODECS, "base64_encode")]

# The filter's own code on arrays (a read at the end stops it: longjmp), and a driver
# timing one mode: 0 the filter's code, 1 the transducer sequentially, 2 in parallel.
DRIVER = r"""
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tracelearn.h>
static const signed char *__in; static long __n, __pos; static int *__out; static long __no; static jmp_buf __stop;
int tl_eof(void) { return __pos >= __n; }
int tl_peek(int k) { if (__pos >= __n) longjmp(__stop, 1); return __in[__pos]; }
int tl_in(void) { int c = tl_peek(0); __pos++; return c; }
void tl_out(int c) { __out[__no++] = c; }
#include "FILTER_FILE"
long tr_capacity(long n);
long tr_seq(const signed char *in, long n, int *out);
long tr_par(const signed char *in, long n, int *out, int threads);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
    int mode = atoi(argv[2]), threads = atoi(argv[3]);
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    signed char *in = malloc(n); if (fread(in, 1, n, f) != (size_t)n) return 2; fclose(f);
    long cap = tr_capacity(n) > 16 * n + 64 ? tr_capacity(n) : 16 * n + 64;
    int *out = malloc(sizeof(int) * cap);
    for (long i = 0; i < cap; i += 1024) out[i] = 0;  /* pages touched before timing */
    long m = 0;
    double t0 = now();
    if (mode == 0) { __in = in; __n = n; __pos = 0; __out = out; __no = 0; if (!setjmp(__stop)) FUNCTION(); m = __no; }
    else if (mode == 1) m = tr_seq(in, n, out);
    else m = tr_par(in, n, out, threads);
    double t1 = now();
    unsigned long long h = 1469598103934665603ULL;
    for (long i = 0; i < m; i++) h = (h ^ (unsigned)out[i]) * 1099511628211ULL;
    printf("%.6f %ld %llu\n", t1 - t0, m, h);
    return 0;
}
"""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", help="comma-separated filter functions")
    p.add_argument("--elements", type=int, default=20_000_000)
    p.add_argument("--threads", type=int, default=2, help="the most threads (default 2)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    if shutil.which("gcc") is None:
        print("gcc not found", file=sys.stderr)
        return 1
    only = set(a.only.split(",")) if a.only else None
    rows = []
    work = Path(tempfile.mkdtemp(prefix="tracelearn-parallel-"))
    for file, fn in FILTERS:
        if only and fn not in only:
            continue
        r = learn_filter_file(str(file), function=fn, check=0, timeout=300)
        t = r.result.transducer
        if not r.doc["complete"] or t is None or t.bits != 8:
            rows.append([fn, "-", "not learned complete: " + r.doc.get("reason", "")[:40]] + [""] * (5 + a.threads))
            continue
        rng = random.Random(a.seed)
        pool = sorted({(c + d + 128) % 256 - 128 for c in constants_of(t) for d in (-1, 0, 1)})
        data = bytes((rng.choice(pool) if rng.random() < 0.5 else rng.randint(-128, 127)) % 256
                     for _ in range(a.elements))
        (work / "input.bin").write_bytes(data)
        (work / f"{fn}_tr.c").write_text(array_source(t, "tr"))
        (work / f"{fn}_main.c").write_text(DRIVER.replace("FILTER_FILE", str(file)).replace("FUNCTION", fn))
        exe = work / fn
        subprocess.run(["gcc", "-O2", "-fwrapv", "-w", "-pthread", "-idirafter", str(INCLUDE), "-o", str(exe),
                        str(work / f"{fn}_main.c"), str(work / f"{fn}_tr.c")], check=True)

        def timed(mode: int, threads: int = 1) -> tuple[float, str]:
            return best_of([str(exe), str(work / "input.bin"), str(mode), str(threads)], a.runs)

        own, want = timed(0)
        seq, got_seq = timed(1)
        par = [timed(2, k) for k in range(2, a.threads + 1)]
        same = got_seq == want and all(g == want for _, g in par)
        best_par = min(s for s, _ in par) if par else seq
        rows.append([fn, t.states, f"{a.elements:,}", f"{own * 1000:.0f}", f"{seq * 1000:.0f}"]
                    + [f"{s * 1000:.0f}" for s, _ in par] + [f"{own / best_par:.2f}x", f"{seq / best_par:.2f}x",
                                                             "yes" if same else "NO"])
    heads = ["filter", "states", "elements", "filter's C [ms]", "transducer seq [ms]"]
    heads += [f"parallel {k} threads [ms]" for k in range(2, a.threads + 1)]
    heads += ["speed-up over filter's C", "over seq", "same outputs"]
    print(f"Data-parallel transducers, gcc -O2, best of {a.runs}\n" + table(rows, heads))
    shutil.rmtree(work, ignore_errors=True)
    return 0 if all(r[-1] in ("yes", "") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Calibration of `tracelearn pac`'s guarantee (issue: PAC verification, beyond the paper).

The guarantee: with probability >= delta, a fresh batch of k decision vectors from
the sampling distribution holds one outside the learned automaton with probability
<= epsilon. On programs whose inputs are few bytes (benchmarks/pac_calibration/,
ours), every input is run in the interpreter once, which gives the exact
distribution of decision vectors under `--strategy random-input` (uniform bytes).
Each of `--runs` independent learnings (seeds 0..runs-1) then has an exact *true
batch error*: 1 - (1 - P(vector outside the automaton))^k. The share of runs whose
true error exceeds epsilon must be at most 1 - delta.

    python benchmarks/pac_calibration.py [--runs 100] [--epsilon 0.1] [--delta 0.9] [--batch 10]
        [--learner kv] [--jobs 2]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import table  # noqa: E402

from tracelearn.analyses.pac.driver import PacOptions, verify  # noqa: E402
from tracelearn.api.pac_verification import PAC_KINDS  # noqa: E402
from tracelearn.automata.dfa import DFA  # noqa: E402
from tracelearn.frontend.lower import DEFAULT_CHECKS, load_program  # noqa: E402
from tracelearn.ir.decisions import DecisionAlphabet, assertions_as_branches  # noqa: E402
from tracelearn.ir.program import Nondet  # noqa: E402
from tracelearn.ir.transform import copy_program  # noqa: E402
from tracelearn.semantics.strategies.concolic import ConcolicSampler  # noqa: E402

HERE = Path(__file__).parent / "pac_calibration"


def exact_distribution(path: Path) -> dict[tuple[bool, ...], float]:
    """Every input of the program (its nondet calls draw unsigned bytes) run once:
    decision vector -> probability under uniform inputs."""
    program = assertions_as_branches(copy_program(load_program(str(path), "LP64", checks=PAC_KINDS | DEFAULT_CHECKS)),
                                     PAC_KINDS)
    draws = sum(isinstance(s, Nondet) for p in program.procedures.values() for b in p.blocks for s in b.stmts)
    sampler = ConcolicSampler(program, DecisionAlphabet.of(program), lambda: None, "random-input", 1, 1000, 0,
                              PAC_KINDS)
    dist: dict[tuple[bool, ...], float] = {}
    total = 256 ** draws
    for values in itertools.product(range(256), repeat=draws):
        s = sampler.run(list(values), random.Random(0))
        assert not s.truncated and s.run.status == "ok", (values, s.run.status)
        dist[s.vector] = dist.get(s.vector, 0.0) + 1 / total
    return dist


def batch_error(dfa: DFA, dist: dict[tuple[bool, ...], float], k: int) -> float:
    out = sum(p for v, p in dist.items() if not dfa.accepts("1" if b else "0" for b in v))
    return 1 - (1 - out) ** k


def one(job: tuple) -> dict:
    path, seed, eps, delta, k, learner, dist = job
    program = load_program(str(path), "LP64", checks=PAC_KINDS | DEFAULT_CHECKS)
    t0 = time.perf_counter()
    r = verify(program, PacOptions(eps, delta, k, learner, "random-input", seed=seed, kinds=PAC_KINDS, timeout=300))
    err = batch_error(r.automaton, dist, k) if r.verdict == "pac-correct" and r.automaton is not None else None
    return {"verdict": r.verdict, "error": err, "eq": r.queries.equivalence, "states":
            r.automaton.num_states if r.automaton else 0, "time": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--epsilon", type=float, default=0.1)
    p.add_argument("--delta", type=float, default=0.9, help="confidence")
    p.add_argument("--batch", type=int, default=10)
    p.add_argument("--learner", default="kv")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", default="", help="substring of the program names")
    args = p.parse_args(argv)
    rows = []
    for path in sorted(HERE.glob("*.c")):
        if args.only not in path.name:
            continue
        dist = exact_distribution(path)
        rare = min(dist.values())
        jobs = [(path, s, args.epsilon, args.delta, args.batch, args.learner, dist) for s in range(args.runs)]
        with ProcessPoolExecutor(args.jobs, max_tasks_per_child=1) as pool:
            res = []
            for seed, r in enumerate(pool.map(one, jobs)):  # each as it comes: a stopped run keeps them
                print(f"{path.stem} seed {seed}: {r['verdict']}, true batch error {r['error']}", file=sys.stderr,
                      flush=True)
                res.append(r)
        done = [r for r in res if r["error"] is not None]
        over = [r for r in done if r["error"] > args.epsilon]
        errs = [r["error"] for r in done]
        rows.append([path.stem, len(dist), f"{rare:.4f}", len(res), len(done), len(over),
                     f"{len(over) / max(1, len(done)):.2f}", f"{1 - args.delta:.2f}",
                     f"{sum(errs) / max(1, len(errs)):.4f}", f"{max(errs, default=0):.4f}",
                     f"{sum(r['eq'] for r in res) / len(res):.1f}", f"{sum(r['time'] for r in res) / len(res):.1f}"])
    print(f"epsilon {args.epsilon}, delta (confidence) {args.delta}, k {args.batch}, learner {args.learner}, "
          f"strategy random-input; true batch error exact over every input")
    print(table(rows, ["program", "vectors", "rarest p", "runs", "pac-correct", "error > eps", "share",
                       "bound 1-delta", "mean error", "max error", "EQ/run", "s/run"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

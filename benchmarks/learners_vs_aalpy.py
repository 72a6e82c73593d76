"""Our learners beside AALpy's on random target DFAs.

For each target (AALpy's ``generate_random_dfa``, minimal, a quarter of the states
accepting) every learner gets the same equivalence oracle: the shortest
distinguishing word, least in alphabet order. Printed per learner: membership
queries that reached the target (ours: distinct words the teacher answered,
after our cache; AALpy: queries its cache passed to the SUL, each of which also
answers every prefix of the word, so a last table counts those word-level
answers), equivalence queries, and whether the result is the target exactly.
Wall time is information only.

Usage: python benchmarks/learners_vs_aalpy.py [--sizes 10,25,50,100,200] [--seeds 3] [--timeout 300]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import time
from collections.abc import Callable
from statistics import mean
from dataclasses import dataclass

from aalpy.base import Oracle
from aalpy.learning_algs import run_KV, run_Lsharp, run_Lstar
from aalpy.SULs import AutomatonSUL
from aalpy.utils import generate_random_dfa

from tracelearn.automata import DFA
from tracelearn.learning import DFATeacher, learn

OURS = ["lstar", "lstar-mp", "kv", "lsharp", "lsharp-witness"]
THEIRS = ["aalpy-lstar", "aalpy-kv", "aalpy-lsharp"]


@dataclass
class Run:
    mq: int
    eq: int
    exact: bool
    seconds: float
    words: int  # word-level answers obtained: ours = mq; AALpy = distinct prefixes of its SUL queries


class RecordingSUL(AutomatonSUL):
    """AALpy's SUL, remembering the words it ran (each run answers every prefix)."""

    def __init__(self, automaton) -> None:
        super().__init__(automaton)
        self.words: set[tuple] = set()

    def query(self, word):
        self.words.add(tuple(word))
        return super().query(word)

    def answered(self) -> int:
        return len({w[:i] for w in self.words for i in range(len(w) + 1)})


def from_aalpy(a) -> DFA:
    ids = {s.state_id: i for i, s in enumerate(a.states)}
    alpha = tuple(a.get_input_alphabet())
    trans = {(ids[s.state_id], x): ids[s.transitions[x].state_id]
             for s in a.states for x in alpha if x in s.transitions}
    return DFA(alpha, len(a.states), ids[a.initial_state.state_id],
               frozenset(ids[s.state_id] for s in a.states if s.is_accepting), trans)


def make_target(n: int, k: int, seed: int):
    random.seed(seed)  # AALpy draws from the global generator
    alphabet = [f"a{i}" for i in range(k)]
    return generate_random_dfa(n, alphabet, num_accepting_states=max(1, n // 4))


class ShortestCex(Oracle):
    """The same oracle our teacher uses: shortest distinguishing word."""

    def __init__(self, alphabet, sul, target: DFA) -> None:
        super().__init__(alphabet, sul)
        self.target = target
        self.calls = 0

    def find_cex(self, hypothesis):
        self.calls += 1
        w = from_aalpy(hypothesis).equivalence_witness(self.target)
        return None if w is None else tuple(w)


def run_ours(name: str, n: int, k: int, seed: int) -> Run:
    target = from_aalpy(make_target(n, k, seed))
    teacher = DFATeacher(target)
    t0 = time.perf_counter()
    r = learn(teacher, name)
    dt = time.perf_counter() - t0
    return Run(r.stats.by_teacher, r.stats.equivalence, r.dfa == target.minimize(), dt, r.stats.by_teacher)


def run_theirs(name: str, n: int, k: int, seed: int) -> Run:
    model = make_target(n, k, seed)
    target = from_aalpy(model)
    alphabet = list(model.get_input_alphabet())
    sul = RecordingSUL(model)
    oracle = ShortestCex(alphabet, sul, target)
    algo = {"aalpy-lstar": run_Lstar, "aalpy-kv": run_KV, "aalpy-lsharp": run_Lsharp}[name]
    t0 = time.perf_counter()
    learned = algo(alphabet, sul, oracle, automaton_type="dfa", cache_and_non_det_check=True, print_level=0)
    dt = time.perf_counter() - t0
    # ``sul`` sits under AALpy's cache: its counter sees only queries the cache missed.
    return Run(sul.num_queries, oracle.calls, from_aalpy(learned).minimize() == target.minimize(), dt,
               sul.answered())


def _worker(name: str, n: int, k: int, seed: int, out) -> None:
    try:
        run = (run_ours if name in OURS else run_theirs)(name, n, k, seed)
        out.put(run)
    except Exception as e:  # report, do not kill the table
        out.put(f"{type(e).__name__}: {e}")


def timed_run(name: str, n: int, k: int, seed: int, timeout: float) -> Run | str:
    out: mp.Queue = mp.Queue()
    p = mp.Process(target=_worker, args=(name, n, k, seed, out))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.kill()
        p.join()
        return "timeout"
    return out.get() if not out.empty() else "crashed"


def cell(r: Run | str) -> str:
    if isinstance(r, str):
        return r[:14]
    return f"{r.mq}/{r.eq}" + ("" if r.exact else " WRONG")


def print_means(rows: list, learners: list[str], width: int, cell: Callable[[list[Run]], str]) -> None:
    """One line per size: ``cell`` of the finished runs of each learner ('-' if none)."""
    header = f"{'states':>6} | " + " | ".join(f"{x:>{width}}" for x in learners)
    print(header)
    print("-" * len(header))
    for n in dict.fromkeys(s for s, _ in rows):
        cells = []
        for x in learners:
            runs = [r[x] for s, r in rows if s == n and isinstance(r[x], Run)]
            cells.append(cell(runs) if runs else f"{'-':>{width}}")
        print(f"{n:>6} | " + " | ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,25,50,100,200")
    ap.add_argument("--seeds", type=int, default=3, help="targets per size (alphabet 2, 3, 4, 2, ...)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per learning run")
    args = ap.parse_args()
    learners = OURS + THEIRS
    rows = []
    print("membership queries / equivalence queries per learner (WRONG: not the target)")
    header = f"{'states':>6} {'|Σ|':>3} {'seed':>6} | " + " | ".join(f"{x:>14}" for x in learners)
    print(header)
    print("-" * len(header))
    for n in (int(x) for x in args.sizes.split(",")):
        for i in range(args.seeds):
            k = 2 + i % 3
            seed = 1000 * n + i
            results = {x: timed_run(x, n, k, seed, args.timeout) for x in learners}
            rows.append((n, results))
            print(f"{n:>6} {k:>3} {seed:>6} | " + " | ".join(f"{cell(results[x]):>14}" for x in learners), flush=True)
    print()
    print("mean per size: membership queries, equivalence queries, seconds (information only); exact = runs that learned the target")
    print_means(rows, learners, 20, lambda runs: (
        f"{mean(r.mq for r in runs):>7.0f} {mean(r.eq for r in runs):>5.1f} {mean(r.seconds for r in runs):>6.2f}s"))
    exact = {x: sum(1 for _, r in rows if isinstance(r[x], Run) and r[x].exact) for x in learners}
    print(f"{'exact':>6} | " + " | ".join(f"{f'{exact[x]}/{len(rows)}':>20}" for x in learners))
    print()
    print("mean word-level answers per size: a query of AALpy's SUL answers every prefix of its word;")
    print("a membership query of a model-checking teacher (pv) answers one word only")
    print_means(rows, learners, 12, lambda runs: f"{mean(r.words for r in runs):>12.0f}")


if __name__ == "__main__":
    main()

"""PAC verification on SV-COMP 2015 Recursive (24 programs, ILP32): the Pac-Man
paper's Tables 1-3, measured with `tracelearn pac` (epsilon 0.1, delta 0.9, k 10).

Table 1: per learner with RBS, averaged over the runs (seeds 0..runs-1): verified,
bugs found (by the error automaton, by sampling, by the bug search), false positives, false negatives
(a bug program called pac-correct), unknown/timeouts, membership and equivalence
queries, total time and the share of it in membership queries.
Membership queries: those the learner asked; of them, those it deduced (the language
is prefix-closed: a prefix of a member is one, an extension of a non-member is none),
and those it put to the teacher, the count to set beside the paper's (its learner's
queries to its teacher); of these, the ones the path explorer followed and the ones
that needed a solver check. The teacher's own probes for a shortest infeasible prefix
are counted apart, and every solver call is in the solver count.
Table 2: KV with RBS vs CDS, with time per sample.
Table 3: the 8 buggy programs, the sampler alone: the batch (restarting every 10
vectors) and the run (never restarting) at which a failing run is first drawn; and the
batch at which `tracelearn pac`'s bug search, alone, draws one.
Table 4: the KV automata learned with RBS and with CDS against fresh vectors of both
samplers (cross-evaluated): batches never used in learning, and one long run.

Each run has a process of its own, as `tracelearn pac FILE` has: the solver's models
depend on the history of z3's context: gcd02 (L#, seed 0) was learned in 16.7 s in a
worker that had run other programs first, and in 38-43 s (113 batches) alone.

    python benchmarks/pac_recursive.py [--benchmarks DIR] [--timeout 120] [--runs 3]
        [--learners kv,lsharp,lstar,rs,lstar-col,nlstar] [--jobs 2] [--tables 1,2,3,4] [--eval-batches 100]
        [--start zero|uniform] [--bug-search 4]
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import benchmarks_dir, table  # noqa: E402

from tracelearn.analyses.pac.driver import PacOptions, make_teacher  # noqa: E402
from tracelearn.api.pac_verification import PAC_KINDS, pac_file  # noqa: E402
from tracelearn.automata.dfa import DFA  # noqa: E402
from tracelearn.frontend.lower import DEFAULT_CHECKS, load_program  # noqa: E402
from tracelearn.ir.decisions import assertions_as_branches  # noqa: E402
from tracelearn.ir.transform import copy_program  # noqa: E402
from tracelearn.report.playback import write_playback  # noqa: E402
from tracelearn.semantics.strategies.concolic import STARTS, ConcolicSampler  # noqa: E402


def gcc_playback(program, cex, path: str) -> str:
    """A bug's playback harness built by gcc and run: "fails" when the run aborts at
    the error, else what happened ("no gcc" where there is none)."""
    if shutil.which("gcc") is None:
        return "no gcc"
    with tempfile.TemporaryDirectory() as d:
        harness = write_playback(program, cex, path, d)
        exe = Path(d) / "playback"
        # -m32 would be ILP32 exactly; these programs use int only, the same in LP64
        build = subprocess.run(["gcc", "-O0", "-o", str(exe), str(harness)], capture_output=True, text=True)
        if build.returncode != 0:
            return "does not build"
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        return "fails" if run.returncode != 0 and "reached" in run.stderr else f"exit {run.returncode}"


def one(job: tuple) -> dict:
    path, learner, strategy, seed, timeout, start, max_decisions, bug_search = job
    t0 = time.perf_counter()
    try:
        r = pac_file(path, learner=learner, strategy=strategy, seed=seed, timeout=timeout, data_model="ILP32",
                     start=start, max_decisions=max_decisions, bug_search=bug_search)
        doc, elapsed = r.doc, time.perf_counter() - t0
        gcc = gcc_playback(r.program, r.result.counterexample, path) if doc["verdict"] == "bug" else None
    except Exception as e:  # a crash is a row of the table, not the end of the run
        return {"verdict": "error", "reason": f"{type(e).__name__}: {e}", "time": time.perf_counter() - t0}
    s = doc["stats"]
    return {"verdict": doc["verdict"], "reason": doc["reason"], "gcc": gcc,
            "replay": (doc["witness"] or {}).get("replay", {}).get("status"),
            "found_by": (doc["witness"] or {}).get("found_by"), "mq": s["membership_queries"],
            "mq_teacher": s["membership_by_solver"] + s["membership_by_prefixes"], "eq": s["equivalence_queries"],
            "mq_deduced": s["membership_by_deduction"], "mq_explorer": s["membership_by_solver"],
            "mq_checked": s["membership_solver_checked"], "probes": s["prefix_probes"], "solver": s["solver_calls"],
            "eq_memory": s["conjectures_refuted_by_earlier_samples"],
            "samples": s["samples"] + s["bug_search"]["samples"],  # sampling time is both testers'
            "time": elapsed, "t_mem": s["time"]["membership"], "t_sampling": s["time"]["sampling"],
            "states": doc["automaton_states"], "automaton": doc["automaton"] if doc["verdict"] == "pac-correct" else None}


def _sampler(path: str, strategy: str, seed: int, start: str, bound: int, search: bool = False) -> ConcolicSampler:
    """The sampler `tracelearn pac` draws its batches from (its explorer, flip budget and
    integer reading), for the program at ``path``; ``search``: its bug search instead."""
    program = assertions_as_branches(copy_program(load_program(path, "ILP32", checks=PAC_KINDS | DEFAULT_CHECKS)),
                                     PAC_KINDS)
    opt = PacOptions(strategy=strategy, seed=seed, start=start, max_decisions=bound, kinds=PAC_KINDS)
    teacher = make_teacher(program, PAC_KINDS, opt, None)
    chosen = teacher.search if search else teacher.sampler
    assert chosen is not None
    return chosen


def sampler_hunt(job: tuple) -> dict:
    """Table 3: batches of 10 until a failing run, one tester never restarted, and
    the bug search's batches alone."""
    path, seed, budget_s, start, bound = job
    out: dict = {}
    for mode in ("restart", "never", "search"):
        s = _sampler(path, "rbs", seed, start, bound, search=mode == "search")
        t0 = time.perf_counter()
        found = None
        stream = s.stream(0) if mode == "never" else None
        n = 0
        while time.perf_counter() - t0 < budget_s:
            runs = [next(stream)] if stream is not None else s.batch(n)
            n += 1
            if any(x.run.status == "violation" for x in runs):
                found = n
                break
        out[mode] = found
    return out


def cross_evaluate(job: tuple) -> dict:
    """Table 4: the share of fresh vectors a learned automaton accepts, for each
    sampler: `batches` batches of 10 (restarted, indices no learning used) and one
    tester never restarted for `singles` vectors."""
    path, automaton, seed, batches, singles, start, bound = job
    dfa = DFA.from_dict(automaton)

    def ok(x) -> bool:
        return dfa.accepts("1" if b else "0" for b in x.vector)

    out = {}
    for st in ("rbs", "cds"):
        s = _sampler(path, st, 10_000 + seed, start, bound)
        vs = [x for i in range(batches) for x in s.batch(1_000_000 + i)]
        stream = s.stream(2_000_000)
        one_run = [next(stream) for _ in range(singles)]
        stream.close()
        out[st] = (sum(map(ok, vs)) / max(1, len(vs)), sum(map(ok, one_run)) / max(1, len(one_run)))
    return out


def main() -> int:
    root, parser = benchmarks_dir(description=__doc__)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--learners", default="kv,lsharp,lstar,rs,lstar-col,nlstar")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--start", choices=STARTS, default="zero",
                        help="where the concolic testers' inputs start (tracelearn pac --start)")
    parser.add_argument("--max-decisions", type=int, default=1000,
                        help="decisions of a sampled run kept (tracelearn pac --max-decisions)")
    parser.add_argument("--bug-search", type=int, default=4,
                        help="a batch of the bug search per N of the sampler's (as `tracelearn pac`; 0: none, "
                             "as the paper)")
    parser.add_argument("--tables", default="1,2,3")
    parser.add_argument("--only", default="")
    parser.add_argument("--eval-batches", type=int, default=100, help="Table 4: fresh batches per sampler")
    parser.add_argument("--eval-singles", type=int, default=1000, help="Table 4: vectors of one unrestarted tester")
    args = parser.parse_args()
    folder = root / "svcomp-recursive"
    rows = [r for r in csv.DictReader(open(folder / "verdicts.csv")) if args.only in r["name"]]
    missing = [r["name"] for r in rows if not (folder / f"{r['name']}.c").exists()]
    if missing:
        print(f"missing programs ({len(missing)}), e.g. {missing[0]}.c: run ../shared/benchmarks/restore.sh",
              file=sys.stderr)
        return 2
    tables = args.tables.split(",")
    configs = [(lrn, "rbs") for lrn in args.learners.split(",")] if "1" in tables else []
    if "2" in tables or "4" in tables:
        configs += [c for c in [("kv", "rbs"), ("kv", "cds")] if c not in configs]
    jobs = [(str(folder / f"{r['name']}.c"), lrn, st, seed, args.timeout, args.start, args.max_decisions,
             args.bug_search)
            for lrn, st in configs for seed in range(args.runs) for r in rows]
    with ProcessPoolExecutor(args.jobs, max_tasks_per_child=1) as pool:
        results = []
        for job, res in zip(jobs, pool.map(one, jobs)):  # each as it comes: a stopped run keeps them
            why = f": {res['reason']}" if res["verdict"] == "error" else ""
            print(f"{Path(job[0]).stem} {job[1]} {job[2]} seed {job[3]}: {res['verdict']} ({res['time']:.1f} s){why}",
                  file=sys.stderr, flush=True)
            results.append(res)
    by = {}
    for job, res in zip(jobs, results):
        by.setdefault((job[1], job[2]), []).append((job[0], res))
    expected = {str(folder / f"{r['name']}.c"): r["expected_verdict"] for r in rows}
    n = args.runs

    def summary(rs: list) -> dict:
        c = {"verified": 0, "bugs": 0, "by_bad": 0, "by_sampling": 0, "by_search": 0, "replayed": 0, "gcc": 0,
             "fp": 0, "fn": 0, "unknown": 0,
             "mq": 0, "mq_teacher": 0, "mq_deduced": 0, "mq_explorer": 0, "mq_checked": 0, "probes": 0, "solver": 0,
             "eq": 0, "eq_memory": 0, "time": 0.0, "t_mem": 0.0, "samples": 0, "t_sampling": 0.0}
        for path, r in rs:
            exp = expected[path]
            v = r["verdict"]
            c["time"] += r["time"]
            for k in ("mq", "mq_teacher", "mq_deduced", "mq_explorer", "mq_checked", "probes", "solver", "eq",
                      "eq_memory", "t_mem", "samples", "t_sampling"):
                c[k] += r.get(k, 0) or 0
            if v == "pac-correct":
                c["verified" if exp == "true" else "fn"] += 1
            elif v == "bug":
                c["replayed"] += r["replay"] == "confirmed"
                c["gcc"] += r["gcc"] == "fails"
                if exp == "false":
                    c["bugs"] += 1
                    c[{"error automaton": "by_bad", "bug search": "by_search"}.get(r["found_by"], "by_sampling")] += 1
                else:
                    c["fp"] += 1
            else:
                c["unknown"] += 1
        return c

    def fmt(x: float) -> str:
        return f"{x / n:.2f}".rstrip("0").rstrip(".")

    if "1" in tables:
        sums = {lrn: summary(by[(lrn, "rbs")]) for lrn in args.learners.split(",")}
        names = list(sums)
        lines = [["Verified"] + [fmt(sums[x]["verified"]) for x in names],
                 ["Bug found"] + [fmt(sums[x]["bugs"]) for x in names],
                 ["  by Bad (B_P)"] + [fmt(sums[x]["by_bad"]) for x in names],
                 ["  by sampling"] + [fmt(sums[x]["by_sampling"]) for x in names],
                 ["  by the bug search"] + [fmt(sums[x]["by_search"]) for x in names],
                 ["  replayed: interpreter / gcc"] + [f"{fmt(sums[x]['replayed'])} / {fmt(sums[x]['gcc'])}"
                                                      for x in names],
                 ["False positives"] + [fmt(sums[x]["fp"]) for x in names],
                 ["False negatives"] + [fmt(sums[x]["fn"]) for x in names],
                 ["Unknown / timeout"] + [fmt(sums[x]["unknown"]) for x in names],
                 ["# of Mem queries asked"] + [fmt(sums[x]["mq"]) for x in names],
                 ["  deduced (decision(P) is prefix-closed)"] + [fmt(sums[x]["mq_deduced"]) for x in names],
                 ["  to the teacher (past cache and deduction)"] + [fmt(sums[x]["mq_teacher"]) for x in names],
                 ["    followed by the path explorer"] + [fmt(sums[x]["mq_explorer"]) for x in names],
                 ["      with a solver check"] + [fmt(sums[x]["mq_checked"]) for x in names],
                 ["  prefixes followed for a shortest no"] + [fmt(sums[x]["probes"]) for x in names],
                 ["Solver calls (all)"] + [fmt(sums[x]["solver"]) for x in names],
                 ["# of Equ queries"] + [fmt(sums[x]["eq"]) for x in names],
                 ["  conjectures refuted by earlier samples"] + [fmt(sums[x]["eq_memory"]) for x in names],
                 ["Total time [s]"] + [f"{sums[x]['time'] / n:.0f}" for x in names],
                 ["Mem queries time"] + [f"{100 * sums[x]['t_mem'] / max(sums[x]['time'], 1e-9):.0f}%" for x in names]]
        print(f"Table 1: learners, RBS, epsilon 0.1, delta 0.9, k 10, {len(rows)} programs, {n} runs averaged, "
              f"timeout {args.timeout:g} s")
        print(table(lines, ["Algorithm"] + names))
        print()
    if "2" in tables:
        sums = {st: summary(by[("kv", st)]) for st in ("rbs", "cds")}
        lines = [[k] + [fmt(sums[s][key]) for s in ("rbs", "cds")] for k, key in
                 [("Verified", "verified"), ("Bug found", "bugs"), ("False positives", "fp"),
                  ("False negatives", "fn"), ("Unknown / timeout", "unknown"), ("# of Mem queries asked", "mq"),
                  ("  to the teacher (past cache and deduction)", "mq_teacher"),
                  ("# of Equ queries", "eq"), ("  conjectures refuted by earlier samples", "eq_memory")]]
        lines.append(["Total time [s]"] + [f"{sums[s]['time'] / n:.0f}" for s in ("rbs", "cds")])
        lines.append(["Time for one sample [s]"] + [f"{sums[s]['t_sampling'] / max(sums[s]['samples'], 1):.4f}"
                                                     for s in ("rbs", "cds")])
        print("Table 2: KV, RBS vs CDS")
        print(table(lines, ["Search strategy", "RBS", "CDS"]))
        print()
    if "4" in tables:
        learned = [(path, st, res) for st in ("rbs", "cds") for path, res in by[("kv", st)]
                   if res.get("automaton") and path.endswith(".c")]
        firsts = {}
        for path, st, res in learned:  # one automaton per program and strategy: the first seed's
            firsts.setdefault((path, st), res)
        keys = sorted(firsts)
        with ProcessPoolExecutor(args.jobs, max_tasks_per_child=1) as pool:
            evals = []
            for (p, st), e in zip(keys, pool.map(cross_evaluate, [(p, firsts[(p, st)]["automaton"], 0,
                                                                  args.eval_batches, args.eval_singles, args.start,
                                                                  args.max_decisions)
                                                                 for p, st in keys])):
                print(f"Table 4: {Path(p).stem} learned with {st}: {e}", file=sys.stderr, flush=True)
                evals.append(e)
        lines = [[Path(p).stem, st.upper(), firsts[(p, st)]["states"]]
                 + [f"{100 * e[t][0]:.1f}%" for t in ("rbs", "cds")] + [f"{100 * e[t][1]:.1f}%" for t in ("rbs", "cds")]
                 for (p, st), e in zip(keys, evals)]
        print(f"Table 4: KV automata (pac-correct, seed 0) against fresh vectors: {args.eval_batches} batches of 10 "
              f"per sampler, and {args.eval_singles} vectors of one tester never restarted")
        print(table(lines, ["Program", "learned with", "states", "RBS batches", "CDS batches", "RBS single",
                            "CDS single"]))
        print()
    if "3" in tables:
        bugs = [r for r in rows if r["expected_verdict"] == "false"]
        hunt_jobs = [(str(folder / f"{r['name']}.c"), seed, args.timeout, args.start, args.max_decisions)
                     for r in bugs
                     for seed in range(n)]
        with ProcessPoolExecutor(args.jobs, max_tasks_per_child=1) as pool:
            hunts = list(pool.map(sampler_hunt, hunt_jobs))
        lines = []
        for i, r in enumerate(bugs):
            hs = hunts[i * n:(i + 1) * n]
            worst = [h["restart"] for h in hs]
            best = [h["never"] for h in hs if h["never"] is not None]
            search = [h["search"] for h in hs]
            lines.append([r["name"], "timeout" if None in worst else f"batch {max(worst)}",
                          f"run {min(best)}" if best else "timeout",
                          "timeout" if None in search else f"batch {max(search)}"])
        print(f"Table 3: RBS sampler alone on the buggy programs (worst of {n} runs restarting every 10, best of "
              f"{n} never restarting; {args.timeout:g} s each), and the bug search alone (worst of {n})")
        print(table(lines, ["Program", "Batch size 10", "Never restart", "Bug search"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

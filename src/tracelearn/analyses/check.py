"""The verdict driver of `check`, a portfolio: the bounded model checker deepens the
unwinding bound until a violation is found (and replayed), every path is explored, or
the time is up, while a Horn-clause proof (``proofs.py``) and a concolic bug search
(``falsify.py``) run beside it; the first answer wins. Switched-off runtime checks and
unwinding bounds decide between `true`, `true-up-to-bound` and `unknown`. The solver
session is ``semantics.bmc.Encoding``; traces and replay are ``semantics.traces``."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import z3

from ..errors import OptionError
from ..ir.program import Program, SourceLoc, is_library_file
from ..semantics.bitwuzla_backend import BitwuzlaWorker
from ..semantics.bmc import Encoding, SolverStats
from ..semantics.interpreter import ALL_CHECKS
from ..semantics.symbolic import SemanticsOptions, SymexLimit
from ..semantics.symexpr import disj
from ..semantics.traces import Counterexample, extract, replay
from ..querytime import at_deadline
from ..semantics.solving import clear_main_interrupt, interrupt_main_context
from .falsify import Falsifier, SearchStats
from .kinduction import KInduction, KInductionProver
from .proofs import PROVE_CHOICES, HornProof, ProofBudget, ProofResult



# The bug search's time: this share of the time limit, at least SEARCH_MIN_S seconds. The
# bugs of SV-COMP 2015's recursive tasks it finds take it 1-3 s; on a safe program it
# competes with the Horn-clause proof for the processors (on two, a search of 10 s slowed
# a proof from 8.6 s to 15.3 s, one to the end of 20 s to 16.4 s)
SEARCH_SHARE = 0.15
SEARCH_MIN_S = 5.0
# On two cores, the model checker has one and the bug search and the proof share the
# other. The search has a head start: the proof's process is niced BESIDE_NICE from the
# beginning, the search's after SEARCH_FIRST_S. (A recursive bug the search finds took
# 3.6 s with no head start, 2.1 s with 10, 2.9 s with 5; proofs took longer with 10.)
BESIDE_NICE = 5
SEARCH_FIRST_S = 2.0


@dataclass
class CheckOptions:
    bound: int | None = None  # None: deepen 1, 2, 4, ... until a verdict or the timeout
    timeout_s: float = 60.0
    checks: frozenset[str] = ALL_CHECKS
    loop_bounds: dict[str, int] = field(default_factory=dict)
    max_bound: int = 1 << 12
    max_steps: int = 2_000_000
    progress: Callable[[str], None] | None = None  # a line of text per phase (for a live display)
    # Proof strategies beside the model checker: "none", "kind", "chc", "all"; None: "all" when
    # the bound deepens, "none" with a fixed --bound (a bounded question, answered at once).
    prove: str | None = None
    # Check kinds whose failure is undefined behaviour: not followed, and a reachable one
    # rules out `true` (a proof must rule it out too). Plain `check` lets signed overflow
    # and shifts wrap as gcc -fwrapv does; SV-COMP tasks assume them absent (`assumed`).
    undefined: frozenset[str] = frozenset({"bounds", "pointer", "div-by-zero"})
    # Check kinds assumed never to fail (SV-COMP's convention for signed overflow and
    # shifts): the paths through a failure end there, no proof has to rule one out, and
    # one the model checker finds reachable is named in the result's `assumptions`.
    assumed: frozenset[str] = frozenset()
    # The concolic bug search beside the model checker (``falsify.py``). Off by default
    # here: a counterexample it finds has no equation to minimize or explain over
    # (``api.check`` turns it on when the bound deepens and neither is asked for).
    bug_search: bool = False
    proof_budget: ProofBudget = field(default_factory=ProofBudget)  # the Horn-clause proof's stages


@dataclass
class CheckProgress:
    """What a running check has finished so far: kept by the caller, so a run stopped
    from outside (time limit, Ctrl-C) still reports its last completed bound."""

    last_done: int | None = None
    working_on: int | None = None
    stats: SolverStats = field(default_factory=SolverStats)
    found: "CheckResult | None" = None  # a counterexample, before its replay
    proof: HornProof | None = None  # the proof attempt running beside the model checker
    assumptions: list[str] = field(default_factory=list)  # see CheckOptions.assumed
    kinduction: KInductionProver | None = None
    falsifier: Falsifier | None = None  # the bug search running beside the model checker

    def stopped(self, why: str) -> "CheckResult":
        if self.found is not None:  # a violation found is a finished result: keep it
            return self.found
        if self.falsifier is not None and self.falsifier.found is not None:  # so is the search's
            return searched(self.falsifier, self.stats)
        proof = self.proof.result(wait=False) if self.proof is not None else None
        if proof is not None and proof.proved:  # so is a proof
            return CheckResult("true", self.last_done, None, self.stats, "", proof=proof, proved_by="chc",
                               assumptions=self.assumptions, kinduction=self._kind())
        if self.proof is not None and proof is None:
            proof = ProofResult("chc", "unknown", f"stopped: {why}", time_s=time.perf_counter() - self.proof.t0)
        verdict = "true-up-to-bound" if self.last_done is not None else "unknown"
        done = f" after bound {self.last_done}" if self.last_done is not None else ""
        return CheckResult(verdict, self.last_done, None, self.stats, f"{why}{done}", proof=proof,
                           assumptions=self.assumptions, kinduction=self._kind(),
                           search=self.falsifier.stop() if self.falsifier is not None else None)

    def _kind(self) -> KInduction | None:
        return self.kinduction.result if self.kinduction is not None else None


@dataclass
class CheckResult:
    verdict: str  # "false", "true", "true-up-to-bound", "unknown"
    bound: int | None
    counterexample: Counterexample | None
    stats: SolverStats
    reason: str = ""
    approximations: list[str] = field(default_factory=list)
    encoding: Encoding | None = None
    model: z3.ModelRef | None = None  # the counterexample's model (verdict false)
    proof: ProofResult | None = None  # what the proof strategy did (None: not run)
    proved_by: str = ""  # verdict true: "unwinding" (every path explored), "k-induction" or "chc" (Horn clauses)
    kinduction: KInduction | None = None  # what k-induction did (None: not run)
    assumptions: list[str] = field(default_factory=list)  # assumed-absent failures found reachable
    found_by: str = ""  # verdict false: "unwinding" (the model checker) or "bug search"
    search: SearchStats | None = None  # what the bug search did (None: not run)


def searched(falsifier: Falsifier, stats: SolverStats) -> CheckResult:
    """The result of a bug the search found (its counterexample already replayed; no
    unwinding bound: the search follows runs)."""
    assert falsifier.found is not None
    return CheckResult("false", None, falsifier.found, stats, "", found_by="bug search", search=falsifier.stop())


def check(program: Program, opts: CheckOptions, done: CheckProgress | None = None) -> CheckResult:
    """The portfolio: the model checker here, a Horn-clause proof on a thread beside it
    and the bug search in a process of its own (``opts.bug_search``)."""
    start = time.perf_counter()
    deadline = start + opts.timeout_s
    check_loop_bounds(program, opts.loop_bounds)
    done = done if done is not None else CheckProgress()
    prove = opts.prove if opts.prove is not None else ("all" if opts.bound is None else "none")
    if prove not in PROVE_CHOICES:
        raise OptionError(f"prove is one of {', '.join(PROVE_CHOICES)}, not {prove!r}")
    proof = None
    kind = KInductionProver(program, opts.checks | opts.undefined, opts.max_steps) if prove in ("kind", "all") else None
    if kind is not None and opts.loop_bounds:  # the base case would not be the global bound's
        kind.refuse("--unwind-loop bounds some loops (the base case is the bound of every loop)")
    done.kinduction = kind
    if opts.bug_search and Falsifier.available():
        # forked before any thread of the check starts (see falsify.py); it has a share of
        # the time only: on a safe program it finds nothing, and its processor is the proof's
        ends = min(deadline, start + max(SEARCH_MIN_S, SEARCH_SHARE * opts.timeout_s))
        # its answer is awaited on a thread started once the proof has forked its own child
        done.falsifier = Falsifier(program, opts.checks, opts.undefined | opts.assumed, ends,
                                   interrupt_main_context, watch=False, nice_after=(SEARCH_FIRST_S, BESIDE_NICE))
    result: CheckResult | None = None
    try:
        if prove in ("chc", "all"):
            if opts.progress is not None:
                opts.progress("encoding the program as Horn clauses")
            # a switched-off undefined-behaviour check is a goal too: a proof must rule it out
            proof = HornProof(program, opts.checks | opts.undefined, deadline, interrupt_main_context,
                              nice=BESIDE_NICE if done.falsifier is not None else 0, budget=opts.proof_budget)
            done.proof = proof
        if done.falsifier is not None:
            done.falsifier.watch()
        result = _portfolio(program, opts, done, deadline, proof, kind)
        if kind is not None:
            result.kinduction = kind.result
        result.assumptions = done.assumptions
        return result
    finally:
        if proof is not None:  # an exception on the way (Ctrl-C, the command's time limit)
            proof.stop()
        if done.falsifier is not None:
            search = done.falsifier.stop()
            if result is not None and result.search is None:
                result.search = search
        if proof is not None or done.falsifier is not None:
            clear_main_interrupt()  # either may have interrupted the main context after its last query


def _portfolio(program: Program, opts: CheckOptions, done: CheckProgress, deadline: float,
               proof: HornProof | None, kind: KInductionProver | None) -> CheckResult:
    search = done.falsifier

    def answered() -> bool:  # another strategy has the verdict: the model checker stops
        return (proof is not None and proof.proved) or (search is not None and search.has_found)

    try:
        with BitwuzlaWorker() as bitwuzla:
            result = _bmc(program, opts, done, deadline, answered, kind, bitwuzla)
    except z3.Z3Exception:
        if not answered():  # not the interrupt of another strategy's answer
            raise
        result = done.stopped("")
    if result.verdict == "false" and not result.found_by:
        result.found_by = "unwinding"
    elif search is not None and search.has_found:  # a bug found beside the model checker
        result = searched(search, result.stats)
    if proof is None:
        if result.verdict == "true" and not result.proved_by:
            result.proved_by = "unwinding"
        return result
    if result.verdict in ("false", "true"):
        proof.stop()
        result.proof = proof.result()
        if result.verdict == "true" and not result.proved_by:
            result.proved_by = "unwinding"
        return result
    if opts.progress is not None and not proof.proved:
        opts.progress("waiting for the Horn-clause proof")
    pr = proof.result()
    result.proof = pr
    if pr is not None and pr.proved:
        return CheckResult("true", result.bound, None, result.stats, "", result.approximations, result.encoding,
                           proof=pr, proved_by="chc")
    return result


def _bmc(program: Program, opts: CheckOptions, done: CheckProgress, deadline: float,
         stop: Callable[[], bool] | None = None, kind: KInductionProver | None = None,
         bitwuzla: BitwuzlaWorker | None = None) -> CheckResult:
    """The bounded model checker's deepening; it ends early when ``stop()`` is true
    (another strategy answered). After each bound with no failing check, ``kind``
    checks that bound's step case. ``bitwuzla``: where each bound's verdict query goes
    first."""
    stats = done.stats

    def say(text: str) -> None:
        if opts.progress is not None:
            opts.progress(f"{text} ({stats.calls} solver calls)")

    bounds = [opts.bound] if opts.bound is not None else _deepening(opts.max_bound)
    last_done: int | None = None
    last_enc: Encoding | None = None
    reason = ""
    approximations: list[str] = []
    for b in bounds:
        if stop is not None and stop():
            reason = "another strategy answered"
            break
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            reason = f"timeout after bound {last_done}" if last_done is not None else "timeout"
            break
        done.working_on = b
        say(f"bound {b}: unwinding")
        try:
            enc = Encoding(program, b, opts.loop_bounds, remaining, opts.max_steps, deadline,
                           SemanticsOptions(leak_checks="memleak" in opts.checks), stats=stats, stop=stop,
                           bitwuzla=bitwuzla)
        except SymexLimit as e:
            reason = str(e)
            break
        approximations = list(dict.fromkeys(enc.eq.approximations))
        if enc.eq.unsupported:
            cut = "; ".join(dict.fromkeys(enc.eq.unsupported))
        say(f"bound {b}: solving ({len(enc.eq.constraints)} constraints)")
        viol = [s.violation for s in enc.checks(opts.checks)]
        r, model = _ask(enc, viol, stats) if viol else ("unsat", None)
        if r == "sat":
            assert model is not None
            cex = extract(enc.eq, model, opts.checks)
            cex.replay = {"status": "not-run", "interpreter": "stopped by the time limit before the replay"}
            done.found = CheckResult("false", b, cex, stats, "", approximations, enc, model)
            say(f"bound {b}: replaying the counterexample")
            cex.replay = replay(program, cex, opts.checks)
            if cex.replay.get("status") == "failed":
                # Never a `false` the program cannot reach: an over-approximated model
                # (fmod, exp, ...) made it up, or the engines disagree (a bug).
                why = ("the counterexample relies on over-approximated library models: " + "; ".join(approximations)
                       if approximations else
                       "the counterexample does not replay in the interpreter (a tracelearn bug: please report it)")
                done.found = None
                return CheckResult("unknown", b, None, stats, why, approximations, enc)
            return done.found
        if r == "unknown":
            if stop is not None and stop():
                reason = "another strategy answered"
                break
            why = enc.last_unknown or enc.solver.reason_unknown() or "solver gave up"
            # z3 says "canceled" for a timeout too: name the time limit when it is past.
            timed_out = at_deadline(deadline)
            reason = (f"timeout while solving bound {b}" if timed_out
                      else f"the solver gave up at bound {b} ({why})")
            break
        if enc.eq.unsupported:
            return CheckResult("unknown", b, None, stats, f"unsupported: {cut}", approximations, enc)
        ub = _switched_off_violation(enc, opts.checks, opts.undefined, stats)
        if ub is not None:
            return CheckResult("unknown", b, None, stats, ub, approximations, enc)
        if last_enc is not None:  # (only the last bound's encoding is reported)
            last_enc.close_session()
        last_done, last_enc = b, enc
        done.last_done = b
        if opts.assumed and not done.assumptions:
            found = _switched_off_violation(enc, opts.checks, opts.assumed, stats,
                                            "assumed not to happen: the paths through it end there")
            if found is not None:
                done.assumptions.append(found)
        unwinds = enc.eq.unwinds()
        if not unwinds:
            return CheckResult("true", b, None, stats, "", approximations, enc)
        r2 = _reachable(enc, [s.guard for s in unwinds], stats)
        if r2 == "unsat":
            return CheckResult("true", b, None, stats, "", approximations, enc)
        if kind is not None and kind.loop is not None:
            say(f"bound {b}: k-induction step case")
            if kind.step(b, deadline, stats, stop):
                return CheckResult("true", b, None, stats, "", approximations, enc, proved_by="k-induction")
        if opts.bound is not None:
            return CheckResult("true-up-to-bound", b, None, stats, "some paths exceed the bound", approximations, enc)
        by_global = [s.guard for s in unwinds if s.origin != "explicit"]
        # (every cut by the global bound: r2 answered this already)
        if r2 == "sat" and len(by_global) < len(unwinds) and (
                not by_global or _reachable(enc, by_global, stats) == "unsat"):
            # Only loops with their own --unwind-loop bound are cut: a larger global
            # bound would change nothing.
            return CheckResult("true-up-to-bound", b, None, stats,
                               "paths exceed the --unwind-loop bounds (a larger --bound changes nothing)",
                               approximations, enc)
    else:
        if opts.bound is None:
            reason = f"the deepening stopped at its largest bound, {opts.max_bound}"
    if last_done is not None:
        return CheckResult("true-up-to-bound", last_done, None, stats, reason, approximations, last_enc)
    return CheckResult("unknown", None, None, stats, reason or "no bound completed", approximations, None)


def _switched_off_violation(enc: Encoding, checks: frozenset[str], undefined: frozenset[str],
                            stats: SolverStats, after: str = "the paths through it are not analysed") -> str | None:
    """Why the verdict cannot be `true` although every selected check holds: a
    switched-off runtime check can fail (undefined behaviour; what follows it is not
    analysed). ``None`` when no such failure is reachable within the bound."""
    off = undefined - checks
    steps = [s for s in enc.checks(off)] if off else []
    if not steps:
        return None
    r, model = _ask(enc, [s.violation for s in steps], stats)
    if r == "unsat":
        return None
    if r != "sat":
        return "could not decide whether a switched-off runtime check fails (solver: " + str(r) + ")"
    hit = next(s for s in steps if z3.is_true(model.eval(s.violation, model_completion=True)))
    return (f"undefined behaviour at {hit.loc} ({hit.prop_kind} check switched off: {hit.message}); "
            f"{after}")


def _ask(enc: Encoding, goals: list, stats: SolverStats) -> tuple[str, z3.ModelRef | None]:
    """Can one of ``goals`` hold? The call is counted in ``stats`` (the check's totals)."""
    # (disj: no one-argument `or`, which SMT-LIB, and so Bitwuzla, does not accept)
    return enc.solve(disj(*goals))  # counted in the check's stats, which enc shares


def _reachable(enc: Encoding, guards: list, stats: SolverStats) -> str:
    return _ask(enc, guards, stats)[0]


def loop_heads(program: Program) -> list[SourceLoc]:
    """Source locations of the loop heads of the user's procedures (targets of back
    edges), the lines ``--unwind-loop`` can name."""
    heads = []
    for proc in program.procedures.values():
        for blk in proc.blocks:
            for dst in blk.successors():
                if dst <= blk.index and not is_library_file(proc.blocks[dst].loc.file):
                    heads.append(proc.blocks[dst].loc)
    return sorted(set(heads), key=lambda l: (l.file, l.line))


def check_loop_bounds(program: Program, loop_bounds: dict[str, int]) -> None:
    """Every ``--unwind-loop`` names a loop head (else a clear error listing them)."""
    heads = loop_heads(program)
    keys = {k for h in heads for k in (f"{h.file}:{h.line}", str(h.line))}
    keys |= {f"{p.name}:{b.loc.line}" for p in program.procedures.values() for b in p.blocks
             if b.loc in heads}
    for k in loop_bounds:
        if k not in keys and not any(h.file.endswith("/" + k.rpartition(":")[0]) and str(h.line) == k.rpartition(":")[2]
                                     for h in heads):
            lines = ", ".join(f"{h.file}:{h.line}" for h in heads) or "none"
            raise OptionError(f"--unwind-loop {k}: no loop starts on that line (loop heads: {lines})")


def _deepening(max_bound: int):
    b = 1
    while b <= max_bound:
        yield b
        b *= 2

"""`tracelearn learn-filter` as a Python function: a symbolic transducer learned from
a stream filter written in C (Sigma*)."""

from __future__ import annotations

import ctypes
import functools
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..analyses.streams.cgen import array_source, pipeline_source, transducer_filter
from ..analyses.streams.driver import LearnOptions, LearnResult, learn
from ..analyses.streams.properties import Search, writes
from ..automata.transducer_algebra import Comparison, NotComposable, compose, equivalence, identity
from ..analyses.streams.replay import FilterReplay
from ..analyses.streams.teacher import constants_of
from ..automata.transducer import Transducer
from ..bvterm import UnsupportedTerm
from ..errors import OptionError, TracelearnError, UnsupportedError
from ..frontend.lower import DEFAULT_CHECKS, load_program
from ..report.check_doc import SCHEMA_VERSION
from ..report.filter_doc import filter_document
from ..frontend.parser import is_identifier
from ..semantics.strategies.bigstep import Element, FilterError, lookahead_of
from .deadline import CommandTimeout, watchdog


@dataclass
class FilterRun:
    doc: dict
    result: LearnResult


def _bit_vector_terms(file_arg: int) -> Callable:
    """A term the transducers cannot hold (floating point, say) met by the analysis: an
    unsupported construct of the filter (its file: positional argument ``file_arg``)."""
    def wrap(f: Callable) -> Callable:
        @functools.wraps(f)
        def call(*args, **kwargs):  # noqa: ANN002, ANN003 - the wrapped function's
            try:
                return f(*args, **kwargs)
            except UnsupportedTerm as e:
                where = args[file_arg] if len(args) > file_arg else kwargs.get("file")
                raise UnsupportedError(f"'{kwargs.get('function')}': {e}: a guard or output outside the "
                                       "transducers' terms (integer terms of the input; no floating point)",
                                       where) from None
        return call
    return wrap


@_bit_vector_terms(0)
def learn_filter_file(file: str, *, function: str, lookback: int | None = None, element: str = "char",
                      max_depth: int | None = None, max_boundaries: int = 5000, check: int = 200,
                      seed: int = 0, columns: str = "counterexamples", compare: str = "syntactic",
                      oracle: str = "boundaries", timeout: float = 300.0, data_model: str = "LP64",
                      include: list[str] | None = None, define: dict[str, str] | None = None,
                      progress: Callable[[str], None] | None = None) -> FilterRun:
    """Learn ``function`` of ``file`` as a symbolic transducer with lookback. The
    document is what ``tracelearn learn-filter --json`` prints. ``check``: random inputs
    (lengths 0..16, half the elements from the guards' constants) on which the
    transducer is compared with the filter run in the interpreter."""
    el = Element.named(element)
    if lookback is not None and not 0 <= lookback <= 64:
        raise OptionError(f"lookback must lie in 0..64, not {lookback}")
    if max_depth is not None and max_depth < 1:
        raise OptionError("max-depth must be >= 1")
    if check < 0:
        raise OptionError("check must be >= 0")
    if columns not in ("paper", "counterexamples"):
        raise OptionError(f"columns is paper or counterexamples, not {columns!r}")
    if compare not in ("syntactic", "semantic"):
        raise OptionError(f"compare is syntactic or semantic, not {compare!r}")
    if oracle not in ("boundaries", "abstraction"):
        raise OptionError(f"oracle is boundaries or abstraction, not {oracle!r}")
    if not timeout > 0 or timeout == float("inf"):
        raise OptionError("timeout must be a finite number of seconds > 0")
    t0 = time.perf_counter()
    dm = data_model.upper()
    opts = LearnOptions(function, el, lookback, max_depth=max_depth, max_boundaries=max_boundaries, timeout=timeout,
                        columns=columns, compare=compare, oracle=oracle)
    result = LearnResult(opts)
    differential = None
    finished = False
    try:  # outside the time limit's block: a late alarm may still land on its last line
        with watchdog(timeout + 5):
            if progress:
                progress("loading the program")
            program = load_program(file, dm, include, define or {}, entry=function, checks=DEFAULT_CHECKS)
            proc = program.procedures.get(function)
            if proc is not None and proc.params:  # (the stream harness would call it without them)
                raise FilterError(f"a filter takes no parameters (it reads its input with tl_in and tl_peek): "
                                  f"'{function}' has {len(proc.params)}", proc.loc)
            opts.timeout = max(0.001, timeout - (time.perf_counter() - t0))
            learn(program, opts, progress, result)
            if result.transducer is not None:
                result.transducer.compile_all()  # (a term no run can evaluate: refused here, whatever --check)
            suspects = failing_check_inputs(result)
            if result.transducer is not None and (check or suspects):
                if progress:
                    progress(f"comparing the transducer with the interpreter on {check + len(suspects)} inputs")
                differential = differential_check(file, function, el, result, check, seed, dm, include, define,
                                                  first=suspects)
            if suspects and (result.complete or result.exact_up_to is not None) and \
                    (differential is None or differential["disagreement"] is None):
                # a check a big step can fail, from a state no input tried reaches: the
                # proof assumed it holds, and nothing shows that state unreachable
                fc = next(f for ex in result.explorers.values() for f in ex.sem.target.failing.values())
                not_proved(result, f"not proved: a check of the filter may fail ({fc.kind}: {fc.message}, "
                                   f"{fc.loc}) on a big step from a state no input tried reaches, and the "
                                   "search does not show that state unreachable")
            finished = True
    except (CommandTimeout, ctypes.ArgumentError) as e:
        if isinstance(e, ctypes.ArgumentError) and "CommandTimeout" not in repr(e):
            raise
        if not finished:  # else the alarm came on the way out: the result stands
            not_proved(result, f"timeout ({timeout:g} s)")
    options = {"function": function, "lookback": lookback, "element": el.name, "max_depth": max_depth,
               "max_boundaries": max_boundaries, "check": check, "seed": seed, "columns": columns,
               "compare": compare, "oracle": oracle, "timeout": timeout}
    return FilterRun(filter_document(result, file, dm, options, differential), result)


def array_code(run: FilterRun, name: str) -> str:
    """The learned transducer as C on arrays: ``NAME_seq`` and the data-parallel
    ``NAME_par(in, n, out, threads)`` (``cgen.array_source``). Only a proved transducer
    is written: a conjecture's code would not be the filter's."""
    t = run.result.transducer
    if t is None or not run.result.complete:
        raise TracelearnError(f"no C code written: the transducer is not proved equal to the filter "
                              f"({run.result.reason or 'nothing learned'})")
    return array_source(t, name)


def learn_filter(file: str, **options) -> dict:
    """``tracelearn learn-filter FILE --json`` as a function (options as
    :func:`learn_filter_file`'s)."""
    return learn_filter_file(file, **options).doc


def not_proved(result: LearnResult, why: str) -> None:
    """Take back a proof (``complete``, ``exact_up_to``): ``why`` is the reason now."""
    result.complete = False
    result.exact_up_to = None
    result.reason = why


def failing_check_inputs(result: LearnResult) -> list[list[int]]:
    """Inputs to run concretely for the checks a big step's path could fail (the
    explorers' candidates, ``FilterTarget.failing``): the window's values of the
    failing input, oldest first, and their suffixes, with and without the element
    met (a step at the end of the input has none)."""
    out: list[list[int]] = []
    for ex in (result.explorers or {}).values():
        for fc in ex.sem.target.failing.values():
            vals = list(reversed(fc.values))
            for v in [vals[i:] for i in range(len(vals))] + [vals[i:-1] for i in range(len(vals) - 1)]:
                if v not in out:
                    out.append(v)
    return out[:64]


def differential_check(file: str, function: str, el: Element, result: LearnResult, count: int, seed: int,
                       data_model: str, include: list[str] | None, define: dict[str, str] | None,
                       first: list[list[int]] = ()) -> dict:
    """The transducer against the filter in the interpreter (through the stream
    harness, not the big-step strategy the learner used) on the inputs ``first``, then
    ``count`` random ones."""
    t = result.transducer
    assert t is not None
    rng = random.Random(seed)
    pool = sorted({el.wrap(c + d) for c in constants_of(t) for d in (-1, 0, 1)})
    replay = FilterReplay(file, function, el.bits, data_model, include, define)
    try:
        inputs = list(first) + ([[]] if count else []) + [
            [rng.choice(pool) if pool and rng.random() < 0.5 else rng.randint(el.lo, el.hi)
             for _ in range(rng.randint(1, 16))] for _ in range(count - 1)]
        bad = None
        for v in inputs:
            got = t.run(v)
            try:
                want = replay.interpret(v)
            except FilterError as e:  # the filter fails there: the model, learned, is kept
                bad = {"input": v, "program_output": None, "program_error": str(e), "transducer_output": got}
                if result.complete or result.exact_up_to is not None:
                    not_proved(result, f"the filter is outside the class: {e}")
                break
            if got != want:
                here = {"input": v, "program_output": want, "transducer_output": got}
                if result.exact_up_to is not None and len(v) > result.exact_up_to:
                    # past the proved length (where a counter may wrap): no refutation, and
                    # the inputs after it are still checked
                    bad = bad or {**here, "beyond_proved_length": True}
                    continue
                bad = here
                if result.complete or result.exact_up_to is not None:  # a proof the interpreter refutes
                    not_proved(result, f"the interpreter disagrees with the proved transducer on {v} (the "
                                       "engines disagree: please report)")
                break
        return {"inputs": len(inputs), "engine": "interpreter", "from_guard_constants": 0.5,
                "disagreement": bad}
    finally:
        replay.close()


PROPERTIES = ("equivalent", "idempotent", "commute", "inverse")


def _model_doc(label: str, r: FilterRun) -> dict:
    """What a property's document says of one learned model."""
    return {"filter": label, "complete": r.doc["complete"], "reason": r.doc["reason"],
            "states": r.doc["transducer"]["states"] if r.doc["transducer"] else None, "stats": r.doc["stats"]}


Learned = dict[tuple[str, str], FilterRun]  # (file, function) -> its learned model, for one element type


def _learned(learned: Learned | None, path: str, function: str, element: str, max_depth: int | None,
             timeout: float) -> FilterRun:
    """``learn_filter_file`` once per filter: ``learned`` keeps what a command learned
    already (fuse --reorder proves commutation from the two models, then fuses them)."""
    key = (str(Path(path).resolve()), function)
    if learned is not None and key in learned:
        return learned[key]
    r = learn_filter_file(path, function=function, element=element, max_depth=max_depth, check=0, timeout=timeout)
    if learned is not None:
        learned[key] = r
    return r


def _proved_model(path: str, function: str, element: str, max_depth: int | None,
                  timeout: float, learned: Learned | None = None) -> tuple[FilterRun | None, str]:
    """The filter's transducer when it has one proved equal to it, else None and why: a
    composition's second filter, composed when it has one, else learned as part of a
    C pipeline (a decoder whose state grows with the input is outside the class alone,
    and in it after its encoder)."""
    try:
        r = _learned(learned, path, function, element, max_depth, timeout)
    except FilterError as e:
        return None, f"the second filter has no transducer of its own: {e}"
    if r.result.transducer is None:
        return None, f"the second filter has no transducer of its own ({r.doc['reason']})"
    if not r.doc["complete"]:
        return None, f"the second filter's transducer was not proved equal to it ({r.doc['reason']})"
    return r, ""


def _compose_first(first: Transducer, second: Transducer, deadline: float) -> tuple[Transducer | None, str]:
    """``second`` after ``first`` composed, or None and why not. The composition gets
    half the time left, so that learning the C pipeline instead still has the rest."""
    now = time.perf_counter()
    try:
        return compose(first, second, deadline=now + max(0.5, (deadline - now) / 2)), ""
    except NotComposable as e:
        return None, str(e)
    except TimeoutError as e:
        return None, f"the composition was not built in its share of the time: {e}"


# The input lengths a pending composition is compared on, each in turn while time allows.
SHORT_INPUTS = (1, 3, 6, 10)


@dataclass
class _Pending:
    """A composition to build: ``second`` (its transducer, or None) after ``first``;
    where it is not built (``why``), learned as a C pipeline unless inputs of a few
    elements separate the two sides."""

    first: Transducer
    second: Transducer | None
    second_file: str
    second_fn: str
    label: str
    why: str = ""


class NoModel(Exception):
    """A filter of the property had no transducer learned (why: the message)."""


@_bit_vector_terms(1)
def filter_property(prop: str, file: str, *, function: str, with_function: str | None = None,
                    with_file: str | None = None, element: str = "char", max_depth: int | None = None,
                    timeout: float = 300.0, progress: Callable[[str], None] | None = None,
                    learned: Learned | None = None) -> dict:
    """``tracelearn filters PROP FILE --function F [--with G] [--with-file FILE2] --json``:
    whether the property holds, from learned transducers, with a shortest witness
    replayed in the interpreter when it does not. A composition is the two transducers
    composed; where the second filter has no transducer of its own (a decoder whose
    state grows with the input, say) the C pipeline of the first's transducer feeding
    the second's code is learned instead. ``learned``: the filters' models learned
    already (reused) and those learned here (added), by (file, function)."""
    if prop not in PROPERTIES:
        raise OptionError(f"unknown property {prop!r} (choose from {', '.join(PROPERTIES)})")
    two = prop in ("equivalent", "commute", "inverse")
    if two and not with_function:
        raise OptionError(f"{prop} compares two filters: give the second with --with G")
    if not two and (with_function or with_file):
        raise OptionError(f"{prop} is a property of one filter: no --with")
    el = Element.named(element)
    g_file = str(Path(with_file or file).resolve())
    f_file = str(Path(file).resolve())
    t0 = time.perf_counter()
    deadline = t0 + timeout
    models: list[dict] = []
    compositions: list[dict] = []
    work = tempfile.TemporaryDirectory(prefix="tracelearn-pipeline-")
    bounded: list[str] = []  # what the comparison on short inputs showed (nothing separating)
    compared: list[int] = []  # the lengths it was made for

    def left_time() -> float:
        return max(1.0, deadline - time.perf_counter())

    def model(path: str, fn: str, label: str):
        if progress:
            progress(f"learning {label}")
        # (a generated pipeline file is learned each time: its path is this call's)
        r = _learned(learned if fn != "__tl_pipeline" else None, path, fn, element, max_depth, left_time())
        models.append(_model_doc(label, r))
        if r.result.transducer is None:  # (the time limit, say): the answer is unknown
            raise NoModel(f"{label}: no transducer learned ({r.doc['reason']})")
        return r.result.transducer

    def composed(x):
        """A pending composition composed (a transducer), else kept pending with why not."""
        if not isinstance(x, _Pending) or x.second is None:
            return x
        if progress:
            progress(f"composing {x.label}")
        t, why = _compose_first(x.first, x.second, deadline)
        if t is None:
            x.why = why
            return x
        compositions.append({"composition": x.label, "by": "composing the transducers", "states": t.states})
        return t

    def learned_pipeline(p: _Pending):
        """The C pipeline of ``p`` (the first's transducer feeding the second's code), learned."""
        src = Path(work.name) / f"pipeline{len(models)}.c"
        src.write_text(_pipeline_c(p.first, p.second_file, p.second_fn))
        try:
            t = model(str(src), "__tl_pipeline", p.label)
        except FilterError as e:  # (the generated pipeline's, not a place in the user's files)
            raise NoModel(f"{p.label}: {p.why + '; ' if p.why else ''}the C pipeline of the two is outside the "
                          f"class: {e.message}") from None
        compositions.append({"composition": p.label, "by": f"learning the C pipeline ({p.why})", "states": t.states})
        return t

    def short_inputs(left, right, bounds: tuple[int, ...], share: float) -> Comparison | None:
        """The two sides on inputs of up to ``bounds`` elements in turn, a pending
        composition built for those only (:func:`compose`'s ``bound``), while ``share``
        of the time left allows: a separating input there is a shortest, found before a
        composition or a pipeline that may take long is built. None: none found."""
        pending = [x for x in (left, right) if isinstance(x, _Pending)]
        if not pending or any(x.second is None for x in pending):
            return None  # (nothing to compose; or a second filter without a transducer: only its pipeline can say)
        if progress:
            progress("comparing the filters on short inputs")
        stop = time.perf_counter() + left_time() * share
        for bound in (b for b in bounds if b not in compared):
            try:
                sides = [compose(x.first, x.second, deadline=stop, bound=bound) if isinstance(x, _Pending) else x
                         for x in (left, right)]
                cmp = equivalence(*sides, deadline=stop, max_length=bound)
            except (NotComposable, TimeoutError):
                break
            if cmp.status == "different":
                for x, t in zip((left, right), sides):
                    if isinstance(x, _Pending):
                        by = f"composing the transducers on inputs of up to {bound} element{'s' * (bound != 1)}"
                        compositions.append({"composition": x.label, "states": t.states,
                                             "by": by + (f" ({x.why})" if x.why else "")})
                return cmp
            bounded[:] = [cmp.reason]
            compared.append(bound)
        return None

    def own_model(path: str, fn: str, label: str):
        # half the time left: the C pipeline, learned when this fails, has the rest
        r, why = _proved_model(path, fn, element, max_depth, left_time() / 2, learned)
        if r is None:
            return None, why
        models.append(_model_doc(label, r))
        return r.result.transducer, ""

    F, G = (f_file, function), (g_file, with_function or "")

    def names(side: list[tuple[str, str]]) -> list[str]:
        # a function's name, with its file's where both filters have one name
        return [fn if F[1] != G[1] or F[0] == G[0] else f"{Path(file).name}:{fn}" for file, fn in side]

    try:
        f = model(f_file, function, function)
        if prop == "equivalent":
            left, right = f, model(g_file, with_function, with_function)
            sides = ([F], [G])
        elif prop == "idempotent":
            left, right = _Pending(f, f, f_file, function, f"{function}.{function}"), f
            sides = ([F, F], [F])
        elif prop == "commute":
            g = model(g_file, with_function, with_function)
            left = _Pending(f, g, g_file, with_function, f"{with_function} after {function}")
            right = _Pending(g, f, f_file, function, f"{function} after {with_function}")
            sides = ([F, G], [G, F])
        else:
            g, why = own_model(g_file, with_function, with_function)
            left = _Pending(f, g, g_file, with_function, f"{with_function} after {function}", why)
            right = identity(el.bits)
            sides = ([F, G], [])
        # a short separating input first (most "no"s have one), then the compositions, then
        # longer inputs where one was not built, then its C pipeline
        cmp = short_inputs(left, right, SHORT_INPUTS[:2], 0.1)
        if cmp is None:
            left, right = composed(left), composed(right)
            cmp = short_inputs(left, right, SHORT_INPUTS, 0.25)
        if cmp is None:
            sides_t: list = []
            missing: NoModel | None = None
            for x in (left, right):
                try:
                    sides_t.append(learned_pipeline(x) if isinstance(x, _Pending) else x)
                except NoModel as e:
                    if missing is not None or x.second is None:
                        raise
                    missing = e  # that side is compared on short inputs only, against the other's model
                    sides_t.append(x)
            left, right = sides_t
            if missing is not None:
                compared.clear()  # (the other side is a learned pipeline now, not a bounded composition)
                cmp = short_inputs(left, right, SHORT_INPUTS, 0.5)
                if cmp is None:
                    raise missing
            else:
                if progress:
                    progress("comparing the transducers")
                cmp = equivalence(left, right, deadline=time.perf_counter() + left_time())
    except NoModel as e:
        cmp = Comparison("unknown", reason=str(e))
    except TimeoutError as e:  # a query the solver left undecided: unknown, never a guess
        cmp = Comparison("unknown", reason=str(e))
    finally:
        work.cleanup()
    if cmp.status == "unknown" and bounded:
        cmp.reason = f"{cmp.reason}; {bounded[0]}" if cmp.reason else bounded[0]
    complete = all(m["complete"] for m in models)
    holds: bool | None
    witness = None
    if cmp.status == "different":
        holds = False
        try:
            outs = [_run_chain(sides[0], cmp.witness, el), _run_chain(sides[1], cmp.witness, el)]
        except FilterError as e:  # a filter's run fails there: the comparison is kept, unconfirmed
            outs, cmp.reason = [None, None], f"the witness's replay failed: {e}"
        witness = {"input": cmp.witness, "left": {"pipeline": names(sides[0]), "output": outs[0]},
                   "right": {"pipeline": names(sides[1]) or ["identity"], "output": outs[1]}}
        witness["replay"] = "confirmed" if outs[0] is not None and outs[0] != outs[1] else "not confirmed"
        if witness["replay"] != "confirmed":
            holds = None  # the models said no, the programs do not: never a wrong answer
            if not cmp.reason:
                unproved = [f"{m['filter']}: {m['reason']}" for m in models if not m["complete"]]
                cmp.reason = ("the learned models differ on the witness, the filters do not"
                              + (f" (not proved equal to its filter: {'; '.join(unproved)})" if unproved else ""))
    elif cmp.status == "equal":
        holds = True if complete else None
    else:
        holds = None
    reason = cmp.reason
    if cmp.status == "equal" and not complete:
        reason = "the learned models agree, but not every model was proved equal to its filter"
    return {"schema_version": SCHEMA_VERSION, "command": "filters", "property": prop, "file": file,
            "function": function, "with": with_function, "with_file": with_file, "holds": holds,
            "reason": reason, "witness": witness, "models": models, "compositions": compositions,
            "stats": {"state_pairs": cmp.pairs, "solver_calls": cmp.solver_calls,
                      "time": round(time.perf_counter() - t0, 4)}}


class _Chain:
    """The filters of ``chain`` run one after the other in the interpreter: the input
    is of the element type, what a filter passes to the next is C's int (tl_out's).
    Each filter's program is loaded once, for all the inputs run."""

    def __init__(self, chain: list[tuple[str, str]], el: Element) -> None:
        self.replays: list[FilterReplay] = []
        try:
            for i, (file, fn) in enumerate(chain):  # (file, function): two files may hold one name
                self.replays.append(FilterReplay(file, fn, el.bits if i == 0 else 32))
        except BaseException:
            self.close()
            raise

    def run(self, values: list[int]) -> list[int]:
        cur = list(values)
        for r in self.replays:
            cur = r.interpret(cur)
        return cur

    def close(self) -> None:
        for r in self.replays:
            r.close()


@_bit_vector_terms(0)
def filter_never_writes(file: str, *, function: str, sequence: list[int], element: str = "char",
                        max_depth: int | None = None, timeout: float = 300.0,
                        progress: Callable[[str], None] | None = None) -> dict:
    """``tracelearn filters never-writes FILE --function F --text S --json``: output
    inclusion, whether no input makes the filter write ``sequence`` (consecutive
    outputs; the pre-image of the outputs holding it is empty), from its learned
    transducer; else an input that does (the shortest the search found), replayed in the
    interpreter."""
    if not sequence:
        raise OptionError("never-writes needs a non-empty sequence (--text or --values)")
    el = Element.named(element)
    path = str(Path(file).resolve())
    t0 = time.perf_counter()
    if progress:
        progress(f"learning {function}")
    r = learn_filter_file(path, function=function, element=element, max_depth=max_depth, check=0, timeout=timeout)
    model = _model_doc(function, r)
    t = r.result.transducer
    search = Search("unknown", reason=f"{function}: no transducer learned ({r.doc['reason']})")
    if t is not None:
        if progress:
            progress("searching the outputs")
        try:
            search = writes(t, list(sequence), deadline=t0 + timeout)
        except TimeoutError as e:  # a query the solver left undecided: unknown, never a guess
            search = Search("unknown", reason=str(e))
    holds: bool | None = None
    witness = None
    reason = search.reason
    if search.status == "writes" and search.witness is not None:
        try:
            out: list[int] | None = _run_chain([(path, function)], search.witness, el)
        except FilterError as e:  # the filter's run fails there: the search's answer is kept, unconfirmed
            out, reason = None, f"the witness's replay failed: {e}"
        n = len(sequence)
        at = None if out is None else next((i for i in range(len(out) - n + 1) if out[i:i + n] == list(sequence)),
                                           None)
        witness = {"input": search.witness, "output": out, "at": at,
                   "replay": "confirmed" if at is not None else "not confirmed"}
        holds = False if at is not None else None  # the model said so, the program does not: unknown
    elif search.status == "never":
        holds = True if r.doc["complete"] else None
        if not r.doc["complete"]:
            reason = "the learned model never writes it, but it was not proved equal to the filter"
    return {"schema_version": SCHEMA_VERSION, "command": "filters", "property": "never-writes", "file": file,
            "function": function, "sequence": list(sequence), "holds": holds, "reason": reason,
            "witness": witness, "models": [model],
            "stats": {"search_nodes": search.nodes, "solver_calls": search.solver_calls,
                      "time": round(time.perf_counter() - t0, 4)}}


def _run_chain(chain: list[tuple[str, str]], values: list[int], el: Element) -> list[int]:
    """``values`` through the filters of ``chain`` (once)."""
    c = _Chain(chain, el)
    try:
        return c.run(values)
    finally:
        c.close()


def _pipeline_c(first: Transducer, second_file: str, second_function: str) -> str:
    """The C of ``second_function`` (in ``second_file``) reading ``first``'s outputs,
    as the filter ``__tl_pipeline``: its queue holds as many more elements as the
    second filter looks ahead."""
    lookahead = lookahead_of(load_program(second_file, entry=second_function))
    quoted = second_file.replace("\\", "\\\\").replace('"', '\\"')  # inside #include "..."
    return pipeline_source(first, quoted, second_function, "__tl_pipeline", lookahead)


@_bit_vector_terms(0)
def fuse_filters(file: str, *, function: str, with_function: str, with_file: str | None = None,
                 output: str | None = None, name: str = "fused", element: str = "char", check: int = 1000,
                 seed: int = 0, max_depth: int | None = None, timeout: float = 300.0, reorder: bool = False,
                 progress: Callable[[str], None] | None = None) -> tuple[dict, str | None]:
    """``tracelearn fuse``: the pipeline (``with_function`` after ``function``) as one
    transducer, written as one C filter ``name``: the two learned transducers composed,
    else (see ``filter_property``) the pipeline learned as one filter. The fused filter
    is run in the interpreter against the two filters chained, on ``check`` random
    inputs. ``reorder``: the pipeline the other way round (``function`` after
    ``with_function``), only once the two are proved to commute (``reorder`` in the
    document: the proof, or why there is none and nothing is fused). Returns the
    document and the C text."""
    el = Element.named(element)
    if not is_identifier(name):
        raise OptionError(f"--name must be a C identifier (not a keyword), not {name!r}")
    if check < 0:
        raise OptionError("check must be >= 0")
    f_file = str(Path(file).resolve())
    g_file = str(Path(with_file or file).resolve())
    t0 = time.perf_counter()
    reordered = None
    learned: Learned = {}  # the two models, learned once for the proof of commutation and the fusion
    if reorder:
        if progress:
            progress(f"proving that {function} and {with_function} commute")
        prop = filter_property("commute", file, function=function, with_function=with_function, with_file=with_file,
                               element=element, max_depth=max_depth, timeout=timeout / 2, progress=progress,
                               learned=learned)
        reordered = {"holds": prop["holds"], "reason": prop["reason"], "witness": prop["witness"],
                     "models": prop["models"]}
        if prop["holds"] is not True:
            why = ("they do not commute" if prop["holds"] is False else
                   f"they were not proved to commute ({prop['reason']})")
            return {"schema_version": SCHEMA_VERSION, "command": "fuse", "file": file, "function": function,
                    "with": with_function, "with_file": with_file, "name": name, "output": None,
                    "complete": False, "reason": f"not reordered: {why}", "composition": None, "transducer": None,
                    "first": None, "differential": None, "reorder": reordered,
                    "stats": {"time": round(time.perf_counter() - t0, 4)}}, None
        # the same function the other way round: with_function first
        f_file, g_file, function, with_function = g_file, f_file, with_function, function
        if with_file:  # (the document names the files in the order fused)
            file, with_file = with_file, file
        timeout = max(1.0, timeout - (time.perf_counter() - t0))
        t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tracelearn-fuse-") as work:
        src = Path(work) / "pipeline.c"
        if progress:
            progress(f"learning {function}")
        first = _learned(learned, f_file, function, element, max_depth, timeout)
        if first.result.transducer is None:
            raise OptionError(f"{function}: no transducer learned ({first.doc['reason']})")
        def left() -> float:
            return max(1.0, timeout - (time.perf_counter() - t0))

        if progress:
            progress(f"learning {with_function}")
        second, why = _proved_model(g_file, with_function, element, max_depth, left() / 2, learned)
        t = None
        if second is not None:
            t, why = _compose_first(first.result.transducer, second.result.transducer, t0 + timeout)
            complete, reason, by = first.doc["complete"], first.doc["reason"], "composing the transducers"
        if t is None:
            src.write_text(_pipeline_c(first.result.transducer, g_file, with_function))
            if progress:
                progress(f"learning {with_function} after {function}")
            pipe = learn_filter_file(str(src), function="__tl_pipeline", element=element, max_depth=max_depth,
                                     check=0, timeout=left())
            t, complete, reason = pipe.result.transducer, pipe.doc["complete"], pipe.doc["reason"]
            if complete and not first.doc["complete"]:
                # the pipeline runs the first filter's transducer: proved equal to that, it is
                # the pipeline of the filters only as far as that transducer is the first filter
                complete, reason = False, f"{function}'s transducer is not proved equal to it ({first.doc['reason']})"
            by = f"learning the C pipeline ({why})"
        text = transducer_filter(t, name) if t is not None else None
        differential = None
        if text is not None and check:
            if progress:
                progress(f"comparing the fused filter with the pipeline on {check} inputs")
            fused = Path(work) / "fused.c"
            fused.write_text(text)
            rng = random.Random(seed)
            pool = sorted({el.wrap(c + d) for c in constants_of(t) for d in (-1, 0, 1)})
            inputs = [[]] + [[rng.choice(pool) if pool and rng.random() < 0.5 else rng.randint(el.lo, el.hi)
                              for _ in range(rng.randint(1, 16))] for _ in range(check - 1)]
            replay = FilterReplay(str(fused), name, el.bits)
            bad, failed = None, []
            try:
                chain = _Chain([(f_file, function), (g_file, with_function)], el)
                try:
                    for v in inputs:
                        try:
                            got, want = replay.interpret(v), chain.run(v)
                        except FilterError as e:  # kept: the fused filter is the result
                            failed.append({"input": v, "error": str(e)})
                            continue
                        if got != want:
                            bad = {"input": v, "pipeline_output": want, "fused_output": got}
                            break
                finally:
                    chain.close()
            finally:
                replay.close()
            differential = {"inputs": len(inputs), "engine": "interpreter", "disagreement": bad,
                            "failed_runs": len(failed), "first_failed_run": failed[0] if failed else None}
    # Only a fused filter proved equal to the pipeline is written (as --array-c): an
    # unproved one may differ from it on inputs the check did not draw
    written = output if output and text is not None and complete else None
    if written:
        Path(written).write_text(text)
    doc = {"schema_version": SCHEMA_VERSION, "command": "fuse", "file": file, "function": function,
           "with": with_function, "with_file": with_file, "name": name, "output": written,
           "complete": complete, "reason": reason, "composition": by,
           "transducer": t.to_json() if t is not None else None,
           "first": {"complete": first.doc["complete"], "states": first.doc["transducer"]["states"]},
           "differential": differential, "reorder": reordered,
           "stats": {"time": round(time.perf_counter() - t0, 4)}}
    return doc, text

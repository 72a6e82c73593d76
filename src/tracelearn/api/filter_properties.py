"""`tracelearn filters PROPERTY` as Python functions: whether two filters are
equivalent, a filter is idempotent, two filters commute, one inverts the other
(``filter_property``), and whether a filter never writes a sequence
(``filter_never_writes``), from their learned transducers, every "no" with a shortest
witness replayed in the interpreter."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..analyses.streams.properties import Search, writes
from ..automata.transducer import Transducer
from ..automata.transducer_algebra import Comparison, NotComposable, compose, equivalence, identity
from ..errors import OptionError
from ..report.check_doc import SCHEMA_VERSION
from ..semantics.strategies.bigstep import Element, FilterError
from .filter_models import Learned, compose_first, learned_model, model_doc, pipeline_c, proved_model, run_chain
from .streams import bit_vector_terms, learn_filter_file

PROPERTIES = ("equivalent", "idempotent", "commute", "inverse")

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


Side = Transducer | _Pending


class NoModel(Exception):
    """A filter of the property had no transducer learned (why: the message)."""


@dataclass
class _Sides:
    """What a property compares: the two sides (transducers, or compositions still to
    build) and the filters each side chains, to replay a witness."""

    left: Side
    right: Side
    chains: tuple[list[tuple[str, str]], list[tuple[str, str]]]


@dataclass
class _PropertySearch:
    """One property's models, compositions and comparisons against one deadline: what
    it learned and composed is reported whatever the answer."""

    element: str
    max_depth: int | None
    deadline: float
    work: Path  # where the generated C pipelines go
    learned: Learned | None = None
    progress: Callable[[str], None] | None = None
    models: list[dict] = field(default_factory=list)
    compositions: list[dict] = field(default_factory=list)
    bounded: str = ""  # what the comparison on short inputs showed (nothing separating)
    compared: list[int] = field(default_factory=list)  # the lengths it was made for

    def say(self, what: str) -> None:
        if self.progress:
            self.progress(what)

    def left_time(self) -> float:
        return max(1.0, self.deadline - time.perf_counter())

    def model(self, path: str, fn: str, label: str) -> Transducer:
        self.say(f"learning {label}")
        # (a generated pipeline file is learned each time: its path is this call's)
        r = learned_model(self.learned if fn != "__tl_pipeline" else None, path, fn, self.element,
                          self.max_depth, self.left_time())
        self.models.append(model_doc(label, r))
        if r.result.transducer is None:  # (the time limit, say): the answer is unknown
            raise NoModel(f"{label}: no transducer learned ({r.doc['reason']})")
        return r.result.transducer

    def own_model(self, path: str, fn: str, label: str) -> tuple[Transducer | None, str]:
        """The filter's proved transducer, or None and why (it is then composed as a C
        pipeline). Half the time left: that pipeline, learned when this fails, has the rest."""
        r, why = proved_model(path, fn, self.element, self.max_depth, self.left_time() / 2, self.learned)
        if r is None:
            return None, why
        self.models.append(model_doc(label, r))
        return r.result.transducer, ""

    def composed(self, x: Side) -> Side:
        """A pending composition composed (a transducer), else kept pending with why not."""
        if not isinstance(x, _Pending) or x.second is None:
            return x
        self.say(f"composing {x.label}")
        t, why = compose_first(x.first, x.second, self.deadline)
        if t is None:
            x.why = why
            return x
        self.compositions.append({"composition": x.label, "by": "composing the transducers", "states": t.states})
        return t

    def learned_pipeline(self, p: _Pending) -> Transducer:
        """The C pipeline of ``p`` (the first's transducer feeding the second's code), learned."""
        src = self.work / f"pipeline{len(self.models)}.c"
        src.write_text(pipeline_c(p.first, p.second_file, p.second_fn))
        try:
            t = self.model(str(src), "__tl_pipeline", p.label)
        except FilterError as e:  # (the generated pipeline's, not a place in the user's files)
            raise NoModel(f"{p.label}: {p.why + '; ' if p.why else ''}the C pipeline of the two is outside the "
                          f"class: {e.message}") from None
        self.compositions.append({"composition": p.label, "by": f"learning the C pipeline ({p.why})",
                                  "states": t.states})
        return t

    def short_inputs(self, left: Side, right: Side, bounds: tuple[int, ...], share: float) -> Comparison | None:
        """The two sides on inputs of up to ``bounds`` elements in turn, a pending
        composition built for those only (:func:`compose`'s ``bound``), while ``share``
        of the time left allows: a separating input there is a shortest, found before a
        composition or a pipeline that may take long is built. None: none found."""
        pending = [x for x in (left, right) if isinstance(x, _Pending)]
        if not pending or any(x.second is None for x in pending):
            return None  # (nothing to compose; or a second filter without a transducer: only its pipeline can say)
        self.say("comparing the filters on short inputs")
        stop = time.perf_counter() + self.left_time() * share
        for bound in (b for b in bounds if b not in self.compared):
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
                        self.compositions.append({"composition": x.label, "states": t.states,
                                                  "by": by + (f" ({x.why})" if x.why else "")})
                return cmp
            self.bounded = cmp.reason
            self.compared.append(bound)
        return None

    def compare(self, left: Side, right: Side) -> Comparison:
        """The two sides compared: a short separating input first (most "no"s have one),
        then the compositions, then longer inputs where one was not built, then its C
        pipeline learned. ``NoModel`` or ``TimeoutError`` when no answer was reached."""
        cmp = self.short_inputs(left, right, SHORT_INPUTS[:2], 0.1)
        if cmp is not None:
            return cmp
        left, right = self.composed(left), self.composed(right)
        cmp = self.short_inputs(left, right, SHORT_INPUTS, 0.25)
        if cmp is not None:
            return cmp
        learned: list[Side] = []
        missing: NoModel | None = None
        for x in (left, right):
            try:
                learned.append(self.learned_pipeline(x) if isinstance(x, _Pending) else x)
            except NoModel as e:
                if missing is not None or not isinstance(x, _Pending) or x.second is None:
                    raise
                missing = e  # that side is compared on short inputs only, against the other's model
                learned.append(x)
        left, right = learned
        if missing is not None:
            self.compared.clear()  # (the other side is a learned pipeline now, not a bounded composition)
            cmp = self.short_inputs(left, right, SHORT_INPUTS, 0.5)
            if cmp is None:
                raise missing
            return cmp
        self.say("comparing the transducers")
        assert isinstance(left, Transducer) and isinstance(right, Transducer)
        return equivalence(left, right, deadline=time.perf_counter() + self.left_time())


def _sides(prop: str, search: _PropertySearch, f_file: str, function: str, g_file: str,
           with_function: str, el: Element) -> _Sides:
    """The two sides of ``prop`` (models learned on the way)."""
    F, G = (f_file, function), (g_file, with_function)
    f = search.model(f_file, function, function)
    if prop == "equivalent":
        return _Sides(f, search.model(g_file, with_function, with_function), ([F], [G]))
    if prop == "idempotent":
        return _Sides(_Pending(f, f, f_file, function, f"{function}.{function}"), f, ([F, F], [F]))
    if prop == "commute":
        g = search.model(g_file, with_function, with_function)
        return _Sides(_Pending(f, g, g_file, with_function, f"{with_function} after {function}"),
                      _Pending(g, f, f_file, function, f"{function} after {with_function}"), ([F, G], [G, F]))
    g_model, why = search.own_model(g_file, with_function, with_function)  # inverse
    return _Sides(_Pending(f, g_model, g_file, with_function, f"{with_function} after {function}", why),
                  identity(el.bits), ([F, G], []))


@bit_vector_terms(1)
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
    chains: tuple[list[tuple[str, str]], list[tuple[str, str]]] = ([], [])
    with tempfile.TemporaryDirectory(prefix="tracelearn-pipeline-") as work:
        search = _PropertySearch(element, max_depth, t0 + timeout, Path(work), learned, progress)
        try:
            sides = _sides(prop, search, f_file, function, g_file, with_function or "", el)
            chains = sides.chains
            cmp = search.compare(sides.left, sides.right)
        except (NoModel, TimeoutError) as e:  # (a query the solver left undecided: unknown, never a guess)
            cmp = Comparison("unknown", reason=str(e))
    if cmp.status == "unknown" and search.bounded:
        cmp.reason = f"{cmp.reason}; {search.bounded}" if cmp.reason else search.bounded
    holds, reason, witness = _verdict(cmp, search.models, chains, el,
                                      _names((f_file, function), (g_file, with_function or "")))
    return {"schema_version": SCHEMA_VERSION, "command": "filters", "property": prop, "file": file,
            "function": function, "with": with_function, "with_file": with_file, "holds": holds,
            "reason": reason, "witness": witness, "models": search.models, "compositions": search.compositions,
            "stats": {"state_pairs": cmp.pairs, "solver_calls": cmp.solver_calls,
                      "time": round(time.perf_counter() - t0, 4)}}


def _names(F: tuple[str, str], G: tuple[str, str]) -> Callable[[list[tuple[str, str]]], list[str]]:
    """How a witness names the filters of a side."""
    def names(side: list[tuple[str, str]]) -> list[str]:
        # a function's name, with its file's where both filters have one name
        return [fn if F[1] != G[1] or F[0] == G[0] else f"{Path(path).name}:{fn}" for path, fn in side]
    return names


def _verdict(cmp: Comparison, models: list[dict], chains: tuple[list[tuple[str, str]], list[tuple[str, str]]],
             el: Element, names: Callable[[list[tuple[str, str]]], list[str]]
             ) -> tuple[bool | None, str, dict | None]:
    """``holds``, the reason and the witness of a comparison: a "no" only once the
    filters themselves, replayed on the witness, differ; a "yes" only from models each
    proved equal to its filter."""
    complete = all(m["complete"] for m in models)
    if cmp.status == "different":
        holds: bool | None = False
        try:
            outs = [run_chain(chains[0], cmp.witness, el), run_chain(chains[1], cmp.witness, el)]
        except FilterError as e:  # a filter's run fails there: the comparison is kept, unconfirmed
            outs, cmp.reason = [None, None], f"the witness's replay failed: {e}"
        witness = {"input": cmp.witness, "left": {"pipeline": names(chains[0]), "output": outs[0]},
                   "right": {"pipeline": names(chains[1]) or ["identity"], "output": outs[1]}}
        witness["replay"] = "confirmed" if outs[0] is not None and outs[0] != outs[1] else "not confirmed"
        if witness["replay"] != "confirmed":
            holds = None  # the models said no, the programs do not: never a wrong answer
            if not cmp.reason:
                unproved = [f"{m['filter']}: {m['reason']}" for m in models if not m["complete"]]
                cmp.reason = ("the learned models differ on the witness, the filters do not"
                              + (f" (not proved equal to its filter: {'; '.join(unproved)})" if unproved else ""))
        return holds, cmp.reason, witness
    if cmp.status == "equal":
        if complete:
            return True, cmp.reason, None
        return None, "the learned models agree, but not every model was proved equal to its filter", None
    return None, cmp.reason, None


@bit_vector_terms(0)
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
    model = model_doc(function, r)
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
            out: list[int] | None = run_chain([(path, function)], search.witness, el)
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

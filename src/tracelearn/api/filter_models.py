"""The learned models the filter commands share (`filters`, `fuse`): a filter's
transducer learned once per command, a composition built or else learned as the C
pipeline of the first's transducer feeding the second's code, and the filters chained
in the interpreter to replay a witness."""

from __future__ import annotations

import time
from pathlib import Path

from ..analyses.streams.cgen import pipeline_source
from ..analyses.streams.replay import FilterReplay
from ..automata.transducer import Transducer
from ..automata.transducer_algebra import NotComposable, compose
from ..frontend.lower import load_program
from ..semantics.strategies.bigstep import Element, FilterError, lookahead_of
from .streams import FilterRun, learn_filter_file

Learned = dict[tuple[str, str], FilterRun]  # (file, function) -> its learned model, for one element type


def model_doc(label: str, r: FilterRun) -> dict:
    """What a command's document says of one learned model."""
    return {"filter": label, "complete": r.doc["complete"], "reason": r.doc["reason"],
            "states": r.doc["transducer"]["states"] if r.doc["transducer"] else None, "stats": r.doc["stats"]}


def learned_model(learned: Learned | None, path: str, function: str, element: str, max_depth: int | None,
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


def proved_model(path: str, function: str, element: str, max_depth: int | None,
                 timeout: float, learned: Learned | None = None) -> tuple[FilterRun | None, str]:
    """The filter's transducer when it has one proved equal to it, else None and why: a
    composition's second filter, composed when it has one, else learned as part of a
    C pipeline (a decoder whose state grows with the input is outside the class alone,
    and in it after its encoder)."""
    try:
        r = learned_model(learned, path, function, element, max_depth, timeout)
    except FilterError as e:
        return None, f"the second filter has no transducer of its own: {e}"
    if r.result.transducer is None:
        return None, f"the second filter has no transducer of its own ({r.doc['reason']})"
    if not r.doc["complete"]:
        return None, f"the second filter's transducer was not proved equal to it ({r.doc['reason']})"
    return r, ""


def compose_first(first: Transducer, second: Transducer, deadline: float) -> tuple[Transducer | None, str]:
    """``second`` after ``first`` composed, or None and why not. The composition gets
    half the time left, so that learning the C pipeline instead still has the rest."""
    now = time.perf_counter()
    try:
        return compose(first, second, deadline=now + max(0.5, (deadline - now) / 2)), ""
    except NotComposable as e:
        return None, str(e)
    except TimeoutError as e:
        return None, f"the composition was not built in its share of the time: {e}"


def pipeline_c(first: Transducer, second_file: str, second_function: str) -> str:
    """The C of ``second_function`` (in ``second_file``) reading ``first``'s outputs,
    as the filter ``__tl_pipeline``: its queue holds as many more elements as the
    second filter looks ahead."""
    lookahead = lookahead_of(load_program(second_file, entry=second_function))
    quoted = second_file.replace("\\", "\\\\").replace('"', '\\"')  # inside #include "..."
    return pipeline_source(first, quoted, second_function, "__tl_pipeline", lookahead)


class FilterChain:
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


def run_chain(chain: list[tuple[str, str]], values: list[int], el: Element) -> list[int]:
    """``values`` through the filters of ``chain`` (once)."""
    c = FilterChain(chain, el)
    try:
        return c.run(values)
    finally:
        c.close()

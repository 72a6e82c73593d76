"""`tracelearn fuse` as a Python function: a pipeline of two filters as one C filter,
from their learned transducers composed (or the pipeline learned as one filter), and,
with ``reorder``, the other order once the two are proved to commute."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ..analyses.streams.cgen import transducer_filter
from ..analyses.streams.replay import FilterReplay
from ..errors import OptionError
from ..frontend.parser import is_identifier
from ..report.check_doc import SCHEMA_VERSION
from ..semantics.strategies.bigstep import Element, FilterError
from .filter_models import FilterChain, Learned, compose_first, learned_model, pipeline_c, proved_model
from .filter_properties import filter_property
from .streams import bit_vector_terms, check_inputs, learn_filter_file


@bit_vector_terms(0)
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
        first = learned_model(learned, f_file, function, element, max_depth, timeout)
        if first.result.transducer is None:
            raise OptionError(f"{function}: no transducer learned ({first.doc['reason']})")
        def left() -> float:
            return max(1.0, timeout - (time.perf_counter() - t0))

        if progress:
            progress(f"learning {with_function}")
        second, why = proved_model(g_file, with_function, element, max_depth, left() / 2, learned)
        t = None
        if second is not None:
            t, why = compose_first(first.result.transducer, second.result.transducer, t0 + timeout)
            complete, reason, by = first.doc["complete"], first.doc["reason"], "composing the transducers"
        if t is None:
            src.write_text(pipeline_c(first.result.transducer, g_file, with_function))
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
            inputs = check_inputs(t, el, check, seed)
            replay = FilterReplay(str(fused), name, el.bits)
            bad, failed = None, []
            try:
                chain = FilterChain([(f_file, function), (g_file, with_function)], el)
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

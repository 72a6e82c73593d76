"""A filter run in the interpreter and under gcc, through the stream harness: the
independent checks of what the big steps and the learned transducer say."""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
from pathlib import Path

from ...frontend.lower import DEFAULT_CHECKS, load_program
from ...semantics.inputs import InputRecord, InputSource, coerce_input
from ...semantics.interpreter import Interpreter
from ...semantics.runs import InterpOptions
from ...semantics.strategies.bigstep import FilterError
from .cgen import GCC_PRELUDE, run_harness


def harness_inputs(values: list[int]) -> list[int]:
    """The harness's inputs for a stream: 0 and the element, for each, then 1 (the end)."""
    out: list[int] = []
    for v in values:
        out += [0, v]
    return out + [1]


class StreamInputs(InputSource):
    """The stream, given to the harness's own draws only; any other input of the
    program (an uninitialised variable, say) gets 0, so it cannot shift the stream."""

    def __init__(self, values: list[int], harness: str) -> None:
        super().__init__(values=harness_inputs(values))
        self.harness = harness

    def next(self, t, origin: str, loc):  # noqa: ANN001 - InputSource's signature
        if loc.file == self.harness:
            return super().next(t, origin, loc)
        self.consumed.append(InputRecord(len(self.consumed), origin, loc, str(t), 0))
        return coerce_input(t, 0)


class FilterReplay:
    def __init__(self, file: str, function: str, bits: int, data_model: str = "LP64",
                 include: list[str] | None = None, define: dict[str, str] | None = None) -> None:
        self.file = str(Path(file).resolve())
        self.function = function
        self.bits = bits
        self._dir = tempfile.TemporaryDirectory(prefix="tracelearn-stream-")
        self.harness = Path(self._dir.name) / "stream_harness.c"
        self.harness.write_text(run_harness(self.file.replace("\\", "\\\\").replace('"', '\\"'), function, bits))
        self.include = include or []
        self.define = define or {}
        self.program = load_program(str(self.harness), data_model, [str(Path(self.file).parent)] + self.include,
                                    self.define, entry="__tl_main", checks=DEFAULT_CHECKS)
        self._interpreter: Interpreter | None = None

    def interpret(self, values: list[int], max_steps: int = 5_000_000) -> list[int]:
        out = io.BytesIO()
        if self._interpreter is None:
            self._interpreter = Interpreter(self.program, InterpOptions(stdout=out, max_steps=max_steps))
        it = self._interpreter  # one for every run: it compiles the procedures once
        it.opt.stdout, it.opt.max_steps = out, max_steps
        r = it.run(StreamInputs(values, str(self.harness)))
        if r.status != "ok":  # the filter's own fault (a division by zero, say), or a run too long
            what = f"{r.violation.kind}: {r.violation.message}" if r.violation else f"{r.status}: {r.note}"
            raise FilterError(f"the filter's run on input {values} in the interpreter fails ({what}): "
                              "a filter must write an output for every input", r.violation.loc if r.violation else None)
        return [int(x) for x in out.getvalue().split()]

    def gcc(self, inputs: list[list[int]], flags: tuple[str, ...] = ("-O2", "-fwrapv")) -> list[list[int]] | None:
        """The outputs of the filter compiled by gcc on each input (None: no gcc)."""
        cc = shutil.which("gcc")
        if cc is None:
            return None
        exe = Path(self._dir.name) / "filter"
        prelude = Path(self._dir.name) / "prelude.c"
        prelude.write_text(GCC_PRELUDE)
        inc = Path(__file__).resolve().parents[2] / "frontend" / "include"
        cmd = [cc, *flags, "-w", "-idirafter", str(inc), "-I", str(Path(self.file).parent),
               *[f"-I{d}" for d in self.include], *[f"-D{k}={v}" if v else f"-D{k}" for k, v in self.define.items()],
               "-o", str(exe), str(self.harness), str(prelude)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"gcc could not compile the filter: {p.stderr.strip()[:2000]}")
        data = "".join(" ".join(str(x) for x in harness_inputs(v)) + "\n" for v in inputs)
        p = subprocess.run([str(exe)], input=data, capture_output=True, text=True, timeout=60 + len(inputs) // 50)
        outs: list[list[int]] = [[]]
        for tok in p.stdout.split():
            if tok == "#":
                outs.append([])
            else:
                outs[-1].append(int(tok))
        outs.pop()
        if len(outs) != len(inputs):
            raise RuntimeError(f"the filter compiled by gcc answered {len(outs)} of {len(inputs)} inputs")
        return outs

    def close(self) -> None:
        self._dir.cleanup()

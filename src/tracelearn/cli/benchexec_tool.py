"""BenchExec's tool-info module for tracelearn: ``<benchmark tool="tracelearn.cli.benchexec_tool">``
runs ``tracelearn check`` on each task as BenchExec runs ESBMC or CBMC (an example
benchmark definition: ``benchmarks/benchexec/tracelearn-recursive.xml``).

Imported by BenchExec only (it is not a dependency of tracelearn)."""

from __future__ import annotations

import re

import benchexec.result as result
import benchexec.tools.template
from benchexec.tools.sv_benchmarks_util import ILP32, LP64, get_data_model_from_task

_ANSWER = re.compile(r"^SV-COMP (\S+): (true|unknown|false\(([^)\s]+)\))(?:\s|$)")


class Tool(benchexec.tools.template.BaseTool2):
    """tracelearn: bounded model checking on one C semantics (z3)."""

    def executable(self, tool_locator):
        return tool_locator.find_executable("tracelearn")

    def version(self, executable):
        return self._version_from_tool(executable).replace("tracelearn", "").strip()

    def name(self):
        return "tracelearn"

    def project_url(self):
        return "https://pypi.org/project/tracelearn/"

    def cmdline(self, executable, options, task, rlimits):
        cmd = [executable, "check", task.single_input_file, "--quiet"]
        if task.property_file:
            cmd += ["--property", task.property_file]
        data_model = get_data_model_from_task(task, {ILP32: "ILP32", LP64: "LP64"})
        if data_model and "--data-model" not in options:
            cmd += ["--data-model", data_model]
        limit = rlimits.cputime or rlimits.walltime
        if limit and "--timeout" not in options:
            cmd += ["--timeout", str(limit)]  # tracelearn answers before BenchExec kills it
        return cmd + list(options)

    def determine_result(self, run):
        for line in reversed(run.output):
            m = _ANSWER.match(line)
            if m is not None:
                answer = m.group(2)
                if answer == "true":
                    return result.RESULT_TRUE_PROP
                if answer == "unknown":
                    return result.RESULT_TIMEOUT if run.was_timeout else result.RESULT_UNKNOWN
                return f"{result.RESULT_FALSE_PROP}({m.group(3)})"
        if run.was_timeout:
            return result.RESULT_TIMEOUT
        errors = [line for line in run.output if line.startswith("tracelearn: error:")]
        return f"{result.RESULT_ERROR} ({errors[-1][len('tracelearn: error:'):].strip()[:60]})" if errors \
            else result.RESULT_ERROR

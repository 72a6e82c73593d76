"""C code for stream filters: the harness that runs a filter on a stream given as
inputs (the interpreter and gcc run it), and gcc's prelude for those inputs."""

from __future__ import annotations


def run_harness(filter_file: str, function: str, bits: int) -> str:
    """A C translation unit that runs the filter on a stream read from the inputs:
    before each element a ``__VERIFIER_nondet_bool()`` (1: the input ends), then the
    element; ``tl_out`` prints each output on a line. The interpreter, the model
    checker and gcc (with a small prelude for the inputs) all run this file."""
    el = {8: "signed char", 16: "short", 32: "int"}[bits]
    nondet_el = {8: "__VERIFIER_nondet_char", 16: "__VERIFIER_nondet_short", 32: "__VERIFIER_nondet_int"}[bits]
    return "\n".join([
        f'#include "{filter_file}"', "",
        "/* tracelearn: stream harness (generated) */",
        f"{el} {nondet_el}(void);", "_Bool __VERIFIER_nondet_bool(void);",
        "int printf(const char *format, ...);", "void exit(int status);",
        "static int __tl_have, __tl_end, __tl_cur;",
        "static void __tl_next(void) {",
        "    if (__VERIFIER_nondet_bool()) { __tl_end = 1; return; }",
        f"    __tl_cur = {nondet_el}();", "    __tl_have = 1;", "}",
        "int tl_peek(int k) {", "    if (!__tl_have && !__tl_end) __tl_next();",
        "    if (__tl_end) exit(0);  /* a read at the end stops the filter */", "    return __tl_cur;", "}",
        "int tl_in(void) { int c = tl_peek(0); __tl_have = 0; return c; }",
        "int tl_eof(void) { if (!__tl_have && !__tl_end) __tl_next(); return __tl_end; }",
        'void tl_out(int c) { printf("%d\\n", c); }',
        f"int __tl_main(void) {{ {function}(); return 0; }}", ""])


GCC_PRELUDE = r"""/* tracelearn: the inputs of the stream harness, for gcc. stdin holds one input per
   line (the harness's draws); each runs in a child process (the filter may keep
   static state, and it stops with exit), its outputs followed by a line "#". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static long *__tl_vals;
static int __tl_n, __tl_i;
static long __tl_read(void) { return __tl_i < __tl_n ? __tl_vals[__tl_i++] : 1; }
_Bool __VERIFIER_nondet_bool(void) { return __tl_read() != 0; }
signed char __VERIFIER_nondet_char(void) { return (signed char)__tl_read(); }
short __VERIFIER_nondet_short(void) { return (short)__tl_read(); }
int __VERIFIER_nondet_int(void) { return (int)__tl_read(); }
int __tl_main(void);
int main(void) {
    static char line[1 << 20];
    static long vals[1 << 18];
    while (fgets(line, sizeof line, stdin)) {
        int n = 0;
        for (char *p = strtok(line, " \n"); p && n < (1 << 18); p = strtok(NULL, " \n"))
            vals[n++] = strtol(p, NULL, 10);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            __tl_vals = vals; __tl_n = n; __tl_i = 0;
            __tl_main();
            exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        printf("#\n");
    }
    return 0;
}
"""

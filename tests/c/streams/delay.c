/* Writes each element one step late, the last one at the end, then -1: output at
   the end of the input (tl_eof), beyond the paper's programs. */
#include <tracelearn.h>

void delay(void) {
    int prev = 0, have = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (have)
            tl_out(prev);
        prev = c;
        have = 1;
    }
    if (have)
        tl_out(prev);
    tl_out(-1);
}

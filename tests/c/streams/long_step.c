/* One big step writes 700 elements: its paths are explored on a stack, not by one
   recursive call per stream operation (which ran into Python's recursion limit). */
#include <tracelearn.h>

void seven_hundred(void) {
    while (1) {
        int c = tl_in();
        for (int k = 0; k < 700; k++)
            tl_out(c);
    }
}

/* The running example of Sigma* (Fig. 2): the first two elements are copied, then
   each output is the difference or the sum of the last two elements. */
#include <tracelearn.h>

void fig2(void) {
    int prev = 0, cur, i = 0;
    while (1) {
        cur = tl_peek(0);
        if (i < 2)
            tl_out(cur);
        else if (cur > prev)
            tl_out(cur - prev);
        else
            tl_out(cur + prev);
        prev = cur;
        tl_in();
        i++;
    }
}

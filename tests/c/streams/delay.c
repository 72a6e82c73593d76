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

/* Writes the sum of the whole input at its end: the output depends on every element,
   outside the class whatever the lookback bound. */
void sum_all(void) {
    int sum = 0;
    while (!tl_eof())
        sum += tl_in();
    tl_out(sum);
}

/* Writes each element with the one three places before it: lookback 3. */
void with_third_back(void) {
    int a = 0, b = 0, c = 0;
    while (1) {
        int d = tl_in();
        tl_out(d + a);
        a = b;
        b = c;
        c = d;
    }
}

/* delay's function written at once: each element as it is read, -1 at the end. */
void echo_then_end(void) {
    while (!tl_eof())
        tl_out(tl_in());
    tl_out(-1);
}

/* Difference coder and decoder (the paper's introduction). */
#include <tracelearn.h>

void diff_encode(void) {
    int prev = 0;
    while (1) {
        int c = tl_in();
        tl_out(c - prev);
        prev = c;
    }
}

void spin(void) {
    int c = tl_in();
    while (c > 0) { }
    tl_out(c);
}

void lookahead(void) {
    while (1) {
        tl_out(tl_peek(1));
        tl_in();
    }
}

void diff_decode(void) {
    int sum = 0;
    while (1) {
        sum += tl_in();
        tl_out(sum);
    }
}

void sum_pairs(void) {
    int prev = 0;
    while (1) {
        int c = tl_in();
        tl_out(c + prev);
        prev = c;
    }
}

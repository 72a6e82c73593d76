/* Filters that look ahead with tl_peek(k): Sigma* reduces lookahead to lookback (the
   step that meets element i + k writes what the filter writes once it has read it). */
#include <tracelearn.h>

/* "ab" becomes "X"; every other element is copied (one element of lookahead) */
void ab_to_x(void) {
    while (1) {
        int c = tl_peek(0);
        if (c == 'a' && tl_peek(1) == 'b') {
            tl_in();
            tl_in();
            tl_out('X');
        } else {
            tl_out(tl_in());
        }
    }
}

/* each element two places on: the first two are dropped */
void two_on(void) {
    while (1) {
        tl_out(tl_peek(2));
        tl_in();
    }
}

/* the sum of each element and the next, then the last element once the input ends */
void pair_sums(void) {
    while (!tl_eof()) {
        int c = tl_in();
        if (tl_eof()) {
            tl_out(c);
            return;
        }
        tl_out(c + tl_peek(0));
    }
}

/* an offset read from the input: outside the class */
void input_offset(void) {
    while (1) {
        int k = tl_in();
        tl_out(tl_peek(k & 1));
    }
}

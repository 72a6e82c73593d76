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

/* Elements held in registers that a step compares with the next: 1 where an element is
   greater than the one before it (the two peeked, the first consumed). */
void next_greater(void) {
    while (1) {
        int c = tl_peek(0);
        int d = tl_peek(1);
        tl_out(d > c);
        tl_in();
    }
}

/* copies its input until an element repeats the one before it, then writes -1 and
   returns (the peeked element held in a register) */
void until_repeat(void) {
    while (1) {
        int c = tl_peek(0);
        if (tl_peek(1) == c) {
            tl_out(-1);
            return;
        }
        tl_out(tl_in());
    }
}

/* copies its input; at the end, how its last two elements compare ('G', 'E', 'L'), or
   how many there were when fewer than two */
void last_two_compared(void) {
    int a = 0, b = 0, n = 0;
    while (!tl_eof()) {
        int c = tl_in();
        a = b;
        b = c;
        if (n < 2)
            n++;
        tl_out(c);
    }
    if (n == 2)
        tl_out(a > b ? 'G' : a == b ? 'E' : 'L');
    else
        tl_out(n);
}

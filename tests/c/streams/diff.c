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

/* A loop that counts while the element is positive: its state changes at every turn,
   so only the statement bound ends it. */
void count_up(void) {
    int c = tl_in();
    unsigned i = 0;
    while (c > 0)
        i++;
    tl_out(c);
}

/* Keeps its first element and never reads it again: every step reads only its own
   element, but the state holds one that gets older at every step. */
static int first_seen;
static int first;
void keep_first(void) {
    while (1) {
        int c = tl_in();
        if (!first_seen) {
            first = c;
            first_seen = 1;
        }
        tl_out(c);
    }
}

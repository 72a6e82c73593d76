#include <tracelearn.h>

/* Pairs whose compositions are hard: each filter is in the class alone. */

/* an "aa" becomes "a": the second a is consumed after a look ahead */
void halve_aa(void) {
    while (!tl_eof()) {
        int c = tl_in();
        if (c == 'a' && !tl_eof() && tl_peek(0) == 'a')
            tl_in();
        tl_out(c);
    }
}

/* a run of a's becomes one a */
void collapse_a(void) {
    int prev = 0;
    while (1) {
        int c = tl_in();
        if (!(c == 'a' && prev == 'a'))
            tl_out(c);
        prev = c;
    }
}

/* each stops writing at a '#': one by a flag, one by returning */
static int hashed;

void stop_by_flag(void) {
    while (1) {
        int c = tl_in();
        if (c == '#')
            hashed = 1;
        if (!hashed)
            tl_out(c);
    }
}

void stop_by_return(void) {
    while (1) {
        int c = tl_in();
        if (c == '#')
            return;
        tl_out(c);
    }
}

void until_nul(void) {
    while (1) {
        int c = tl_in();
        if (c == 0)
            return;
        tl_out(c);
    }
}

void first_line(void) {
    while (1) {
        int c = tl_in();
        if (c == '\n')
            return;
        tl_out(c);
    }
}

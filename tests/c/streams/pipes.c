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

/* "&lt;" becomes '<' and "&amp;" becomes '&', found by looking ahead; a '&' starting
   neither is copied. Not idempotent: "&amp;lt;" decodes to "&lt;", then to "<" (and,
   shorter, "&&": the look ahead past the last '&' stops the second run). Composed
   with itself, the second decoder's window holds the first's outputs only while it
   waits on a '&': the composition forgets the rest. */
void unescape_lt_amp(void) {
    while (1) {
        int c = tl_in();
        if (c == '&' && tl_peek(0) == 'l' && tl_peek(1) == 't' && tl_peek(2) == ';') {
            tl_in(); tl_in(); tl_in();
            tl_out('<');
        } else if (c == '&' && tl_peek(0) == 'a' && tl_peek(1) == 'm' && tl_peek(2) == 'p' && tl_peek(3) == ';') {
            tl_in(); tl_in(); tl_in(); tl_in();
            tl_out('&');
        } else {
            tl_out(c);
        }
    }
}

/* Run-length decoding of (count, element) pairs, a count over 3 taken as 3. Composed
   with itself, the second decoder holds a count while the first writes nothing for
   any number of (0, x) pairs: no lookback says that, so the composition is refused,
   and only inputs of a few elements are compared. */
void rl_decode3(void) {
    while (1) {
        int n = tl_in();
        int c = tl_in();
        if (n >= 1) tl_out(c);
        if (n >= 2) tl_out(c);
        if (n >= 3) tl_out(c);
    }
}

/* A run of equal elements becomes one (uniq); the first element is compared with 0,
   so leading zeros are dropped. Idempotent. Composed with itself, the second filter
   compares with the last element the first wrote, which is as far back as the run of
   repeats is long; but the step that writes nothing says x == x[-1], so that element
   is always x[-1], and the composition is the filter again, proved. */
void squeeze_from_zero(void) {
    int prev = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (c != prev)
            tl_out(c);
        prev = c;
    }
}

/* the input without its zeros */
void drop_zeros(void) {
    while (1) {
        int c = tl_in();
        if (c != 0)
            tl_out(c);
    }
}

/* Filters that hold an element back until the next one (or the end) decides. */
#include <tracelearn.h>

/* '=' stays, but as the last element it becomes '_' (ctemplate's CleanseAttribute
   rule): the '=' is written one step late, or replaced at the end. */
void equals_not_last(void) {
    int held = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (held)
            tl_out('=');
        held = c == '=';
        if (!held)
            tl_out(c);
    }
    if (held)
        tl_out('_');
}

/* "ab" becomes "X" and "Ab" becomes "Y"; a held 'a' or 'A' not followed by 'b' goes
   through as it was. What the held element is decides the next step. (h is cleared
   when it is let go: a state that keeps an old element has no bounded lookback.)
   With escape, markup is escaped as html_escape does: the free state's steps take one
   path per escaped character, and none of them is read again once the step is over. */
static void pairs_with(int escape) {
    int h = 0, n = 0;
    while (!tl_eof()) {
        int c = tl_in();
        if (n) {
            n = 0;
            int was = h;
            h = 0;
            if (c == 'b') {
                tl_out(was == 'a' ? 'X' : 'Y');
                continue;
            }
            tl_out(was);
        }
        if (c == 'a' || c == 'A') {
            h = c;
            n = 1;
            continue;
        }
        switch (escape ? c : 0) {
        case '<': tl_out('&'); tl_out('l'); tl_out('t'); tl_out(';'); break;
        case '>': tl_out('&'); tl_out('g'); tl_out('t'); tl_out(';'); break;
        case '&': tl_out('&'); tl_out('a'); tl_out('m'); tl_out('p'); tl_out(';'); break;
        case '"': tl_out('&'); tl_out('q'); tl_out('u'); tl_out('o'); tl_out('t'); tl_out(';'); break;
        default: tl_out(c);
        }
    }
    if (n)
        tl_out(h);
}

void pairs(void) {
    pairs_with(0);
}

void pairs_escaped(void) {
    pairs_with(1);
}

/* 'Z' where the element two back equals this one and the one before is one more
   (5, 6, 5): after a 'Z' the next cannot be one. The boundary after the second keeps
   "x[-1] == x[-2] + 1", moved back from "x[-1] == x + 1" once x[-2] leaves the window. */
void up_down(void) {
    int p1 = 0, p2 = 0, n = 0;
    while (!tl_eof()) {
        int c = tl_in();
        tl_out(n >= 2 && p2 == c && p1 == c + 1 ? 'Z' : c);
        p2 = p1;
        p1 = c;
        if (n < 2)
            n++;
    }
}

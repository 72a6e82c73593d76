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

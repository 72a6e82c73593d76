/* Filters for the predicate abstraction (--oracle abstraction): what it must keep exact,
   and what it cannot keep. */
#include <tracelearn.h>

/* A global holds the flag's value of the step before: the flag reaches the global, so
   it is data (kept exact), not a symbol that stands for its next value. Writes c + 1
   right after each 7. */
int last_flag = 0;
void flag_to_global(void) {
    int st = 0;
    while (1) {
        int c = tl_in();
        if (last_flag != st)
            tl_out(c + 1);
        else
            tl_out(c);
        last_flag = st;
        if (c == 7)
            st = 1 - st;
    }
}

/* A loop in one step runs n times, and n is a control register (at most 3): from an
   abstract state the loop has no bound. */
void loop_by_state(void) {
    int n = 0;
    while (1) {
        int c = tl_in();
        for (int k = 0; k < n; k++)
            tl_out(c);
        if (n < 3)
            n++;
    }
}

/* A flag machine: 'a' opens, 'b' closes, and inside every element is written twice. */
void inside_twice(void) {
    int in = 0;
    while (1) {
        int c = tl_in();
        if (c == 'a')
            in = 1;
        else if (c == 'b')
            in = 0;
        else if (in)
            tl_out(c);
        tl_out(c);
    }
}

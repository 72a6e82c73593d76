/* Filters that count their elements. count8's counter is an unsigned char: the first
   three elements are copied, the rest written plus one, until the counter wraps after
   256 elements and the filter copies again. numbered writes its counter, so the counter
   is not only compared with constants: every count is a state of its own. */
#include <tracelearn.h>

void count8(void) {
    unsigned char i = 0;
    while (1) {
        int c = tl_in();
        if (i < 3)
            tl_out(c);
        else
            tl_out(c + 1);
        i++;
    }
}

void numbered(void) {
    int i = 0;
    while (1) {
        int c = tl_in();
        tl_out(c);
        tl_out(i);
        i++;
    }
}

/* Its counter stops at 3, above every constant it is compared with: one value there
   that never grows again, never wraps, and the model is proved for every input. */
void after_three(void) {
    int i = 0;
    while (1) {
        int c = tl_in();
        tl_out(i > 2 ? -c : c);
        if (i <= 2)
            i++;
    }
}

/* Filters that fail (a division by zero) only from a state some elements in: the
   window's values of the failing step alone do not reach it. divodd counts in an
   unsigned char (a counter); divodd_nc doubles s up to 4095 (not a counter). */
#include <tracelearn.h>

void divodd(void) {
    unsigned char i = 0;
    while (1) {
        int c = tl_in();
        if (i >= 12) {
            int d = 100 / (c & 1);
            if (d > 1000) tl_out(0);
        }
        tl_out(c);
        i++;
    }
}

void divodd_nc(void) {
    int s = 0;
    while (1) {
        int c = tl_in();
        if (s >= 4095) {
            int d = 100 / (c & 1);
            if (d > 1000) tl_out(0);
        }
        tl_out(c);
        if (s < 4095) s = s * 2 + 1;
    }
}

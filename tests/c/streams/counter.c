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

/* Counters whose merge cannot be shown exact: a value above the constants may wrap
   inside one step (learning goes on without counters, and proves nothing past the
   depth bound). down adds 0xFFFFFFFFu: a decrement. jump8 adds 200 to an unsigned
   char (0, 200, 144, 88, ...: back below 3 after 32 elements). loop8 adds 100 three
   times in one step (41, 85, ...: below 40 on the way). */
void down(void) {
    unsigned int i = 8;
    while (1) {
        int c = tl_in();
        tl_out(i < 3 ? c : c + 1);
        i += 0xFFFFFFFFu;
    }
}

void jump8(void) {
    unsigned char i = 0;
    while (1) {
        int c = tl_in();
        tl_out(i < 3 ? c : c + 1);
        i += 200;
    }
}

void loop8(void) {
    unsigned char i = 41;
    while (1) {
        int c = tl_in();
        int hit = 0;
        for (int k = 0; k < 3; k++) {
            i += 100;
            if (i < 40)
                hit = 1;
        }
        tl_out(hit ? c : c + 1);
    }
}

/* A short counter that jumps by 100 on a 7, else by 1: it wraps after 328 sevens (32,800
   passes 32,767), and the model learned is wrong from 329 sevens on. With few enough
   statements per step the merge is exact below that, and the bound says so. */
void jump16(void) {
    short i = 0;
    while (1) {
        int c = tl_in();
        tl_out(i < 3 ? c : c + 1);
        if (c == 7)
            i += 100;
        else
            i++;
    }
}

/* A counter no branch reads: its value never matters, wrapped or not, and the model is
   proved for every input. */
void unused(void) {
    unsigned char i = 0;
    while (1) {
        tl_out(tl_in());
        i++;
    }
}

/* Set to 250 on a 7: from there a few statements may take it past 255. The bound
   would be 0 elements; learning goes on without counters instead. */
void reset_big(void) {
    unsigned char i = 0;
    while (1) {
        int c = tl_in();
        tl_out(i < 3 ? c : c + 1);
        if (c == 7)
            i = 250;
        else
            i++;
    }
}

/* Decreasing counters, the same in the other direction: every value below the smallest
   constant compared with is one value, until the counter passes its type's minimum.
   count_down's int falls by one on an 'a' (2^31 'a's never wrap it); down8's signed
   char falls by one on a 7 and wraps to 127 at the 129th: the filter copies again. */
void count_down(void) {
    int n = 0;
    while (1) {
        int c = tl_in();
        if (c == 'a')
            n--;
        tl_out(n < -2 ? '!' : c);
    }
}

void down8(void) {
    signed char n = 0;
    while (1) {
        int c = tl_in();
        if (c == 7)
            n -= 1;
        tl_out(n < -2 ? '!' : c);
    }
}

/* Calibration program (ours): a loop run n & 7 times (each count 1/8), then a rare
 * condition (5/256); the assertion never fails. */
#include <assert.h>
extern unsigned char __VERIFIER_nondet_uchar(void);

int main(void) {
    unsigned char n = __VERIFIER_nondet_uchar();
    int i = 0, s = 0;
    while (i < (n & 7)) {
        s += i;
        i++;
    }
    if (n > 250)
        s = -1;
    assert(s >= -1 && s <= 28);
    return 0;
}

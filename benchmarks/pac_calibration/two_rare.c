/* Calibration program (ours): two independent conditions on uniform bytes and a
 * third that only their conjunction makes; the assertion never fails. The decision
 * vectors and their probabilities under uniform inputs are known exactly. */
#include <assert.h>
extern unsigned char __VERIFIER_nondet_uchar(void);

int main(void) {
    unsigned char a = __VERIFIER_nondet_uchar();
    unsigned char b = __VERIFIER_nondet_uchar();
    int r = 0;
    if (a < 16)   /* 1/16 */
        r += 1;
    if (b < 8)    /* 1/32 */
        r += 2;
    if (r == 3)   /* both: 1/512 */
        r = 2;
    assert(r < 3);
    return 0;
}

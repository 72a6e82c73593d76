/* Calibration program (ours): a ladder of thresholds on one byte, so that each
 * further step is rarer (1/2, 1/4, ... 1/64 of the inputs go on); the last rung is
 * checked by an assertion that holds. */
#include <assert.h>
extern unsigned char __VERIFIER_nondet_uchar(void);

int main(void) {
    unsigned char x = __VERIFIER_nondet_uchar();
    int level = 0;
    if (x < 128) {
        level = 1;
        if (x < 64) {
            level = 2;
            if (x < 32) {
                level = 3;
                if (x < 16) {
                    level = 4;
                    if (x < 8) {
                        level = 5;
                        if (x < 4)
                            level = 6;
                    }
                }
            }
        }
    }
    assert(level <= 6);
    return 0;
}

#include <assert.h>
#define MIN(a,b) ({ __typeof__ (a) _a = (a); __typeof__ (b) _b = (b); _a < _b ? _a : _b; })
int g[5];
int main(void) {
    int x = __VERIFIER_nondet_int(), n = 0;
    typeof(g) h;
    __typeof__(int *) p = &x;
    __typeof(x++) y = 7;      /* not evaluated */
    assert(sizeof h == 5 * sizeof(int) && *p == x && y == 7);
    long m = MIN(x, n++);
    assert(n == 1);
    assert(m <= 0);
    assert(m != -5);
    return 0;
}

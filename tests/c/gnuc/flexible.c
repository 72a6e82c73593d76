#include <stdlib.h>
#include <assert.h>
struct big { int k, wds; unsigned x[1]; };
struct pair { unsigned x[1]; int after; };
int main(void) {
    struct big *b = malloc(sizeof(struct big) + 3 * sizeof(unsigned));
    for (int i = 0; i < 4; i++) b->x[i] = i;          /* fine: the block has room */
    assert(b->x[3] == 3);
    int n = __VERIFIER_nondet_int();
    if (n >= 0 && n < 6) b->x[n] = 7;                 /* n = 4, 5: beyond the block */
    struct pair p;
    p.x[0] = 1;
    if (n == 1) p.x[n] = 2;                           /* not the last member: bounds */
    free(b);
    return 0;
}

#include <assert.h>
#include "point.h"

static int calls;           /* private: geometry.c has its own 'calls' */
static int counter_local(void) { return ++calls; }

int main(void) {
    struct point p = {1, 2};
    p = shift(p, 3);
    counter_local();
    counter_local();
    assert(p.x == 4 && p.y == 2);
    assert(shifts == 1);
    assert(calls == 2);
    assert(counter() == 1);   /* geometry.c's calls: 1 after shift, 1 here */
    assert(twice(SCALE) == 2 * SCALE);
    assert(calls + shifts < LIMIT);
    return 0;
}

#include "point.h"

int shifts;
static int calls;

struct point shift(struct point p, int dx) {
    calls = 0;
    shifts++;
    p.x += dx;
    return p;
}

int counter(void) { return ++calls; }

#include <stdarg.h>
#include <assert.h>
struct pair { int a; long b; };
static long sum(int n, ...) {
    va_list ap;
    long s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++) s += va_arg(ap, int);
    va_end(ap);
    return s;
}
static double mix(const char *kinds, ...) {
    va_list ap, copy;
    double s = 0;
    va_start(ap, kinds);
    va_copy(copy, ap);
    for (const char *k = kinds; *k; k++) {
        if (*k == 'd') s += va_arg(ap, double);
        else if (*k == 'p') { struct pair p = va_arg(ap, struct pair); s += p.a + p.b; }
        else if (*k == 's') s += *va_arg(ap, char *);
        else s += va_arg(ap, long long);
    }
    va_end(ap);
    s += va_arg(copy, double) * 0;
    return s;
}
int main(void) {
    char c = 3;
    short h = -2;
    struct pair p = {10, 20};
    assert(sum(3, c, h, 100) == 101);
    assert(sum(0) == 0);
    assert(mix("dpsl", 1.5f, p, "A", 5LL) == 1.5 + 30 + 65 + 5);
    int x = __VERIFIER_nondet_int();
    assert(sum(2, x, 1) != 7);
    return 0;
}

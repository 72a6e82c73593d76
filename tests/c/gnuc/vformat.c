#include <stdio.h>
#include <stdarg.h>
#include <assert.h>
#include <string.h>
static int say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vprintf(fmt, ap);
    va_end(ap);
    return n;
}
static void fmt(char *out, size_t size, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    vsnprintf(out, size, f, ap);
    va_end(ap);
}
int main(void) {
    char buf[32];
    say("%d|%s|%5.2f|%c|%ld|%x\n", -42, "str", 3.14159, 'z', 123456789012L, 255u);
    fmt(buf, sizeof buf, "<%s:%d>", "ab", 7);
    assert(strcmp(buf, "<ab:7>") == 0);
    fmt(buf, 4, "%d", 123456);
    assert(strcmp(buf, "123") == 0);
    fprintf(stderr, "ok\n");
    return 0;
}

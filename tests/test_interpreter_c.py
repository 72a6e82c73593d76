"""C semantics of the frontend + interpreter, checked against expected outputs and,
where gcc is installed, against gcc on the same program."""

from __future__ import annotations

import pytest

from conftest import gcc_output, interp_output

PROGRAMS = {
    "promotions": (r'''
#include <stdio.h>
int main(void) {
    unsigned char a = 200, b = 100;
    int c = a + b;                 /* promoted to int: 300 */
    unsigned char d = a + b;       /* wraps: 44 */
    signed char e = -128;
    printf("%d %d %d\n", c, d, -e);
    printf("%d\n", -1 < 1u);       /* usual conversions: 0 */
    printf("%d\n", (long)-1 < 1u); /* LP64: long holds all unsigned: 1 */
    unsigned short us = 65535;
    printf("%d\n", us * us > 0);   /* int multiplication wraps: 0 with -fwrapv */
    printf("%u %x\n", (unsigned)-1, 255);
    return 0;
}''', b"300 44 128\n0\n1\n0\n4294967295 ff\n"),
    "division": (r'''
#include <stdio.h>
int main(void) {
    printf("%d %d %d %d\n", 7 / 2, -7 / 2, 7 % -2, -7 % 2);
    printf("%u\n", 7u / 2u);
    printf("%d %d\n", -8 >> 1, 1 << 31);
    unsigned int u = 0x80000000u;
    printf("%u\n", u >> 31);
    return 0;
}''', b"3 -3 1 -1\n3\n-4 -2147483648\n1\n"),  # INT_MIN / -1: see test_newuser
    "structs": (r'''
#include <stdio.h>
struct P { char c; int i; short s; };
struct B { unsigned a : 3; signed b : 4; unsigned c : 9; };
union U { int i; unsigned char b[4]; float f; };
struct N { struct P p; int arr[3]; };
int main(void) {
    struct P p = { 'x', 42, -3 };
    struct B bf;
    bf.a = 9; bf.b = -3; bf.c = 300;
    union U u; u.i = 0x01020304;
    struct N n = { { 'a', 1, 2 }, { 7, 8 } };
    struct N m = n;
    m.arr[2] = 99;
    printf("%zu %zu %zu %zu\n", sizeof(struct P), sizeof(struct B), sizeof(union U), sizeof(struct N));
    printf("%c %d %d\n", p.c, p.i, p.s);
    printf("%d %d %d\n", bf.a, bf.b, bf.c);
    printf("%d %d\n", u.b[0], u.b[3]);
    printf("%d %d %d %d\n", n.arr[0], n.arr[1], n.arr[2], m.arr[2]);
    return 0;
}''', b"12 4 4 24\nx 42 -3\n1 -3 300\n4 1\n7 8 0 99\n"),
    "pointers": (r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int sum(int *a, int n) { int s = 0; for (int *p = a; p < a + n; p++) s += *p; return s; }
int main(void) {
    int a[2][3] = { {1, 2, 3}, {4, 5, 6} };
    int *p = &a[0][0];
    printf("%d %d %ld\n", sum(p, 6), *(p + 4), (long)(&a[1][2] - p));
    char *s = malloc(8);
    strcpy(s, "hello");
    printf("%s %zu %d\n", s, strlen(s), strcmp(s, "help") > 0);
    int **pp = malloc(2 * sizeof(int *));
    pp[0] = &a[1][0]; pp[1] = p;
    printf("%d %d\n", pp[0][1], *pp[1]);
    free(pp); free(s);
    char buf[16];
    memset(buf, 'z', 3); buf[3] = 0;
    printf("%s\n", buf);
    return 0;
}''', b"21 5 5\nhello 5 0\n5 1\nzzz\n"),
    "control": (r'''
#include <stdio.h>
int f(int n) { return n <= 1 ? 1 : n * f(n - 1); }
int even(int n); int odd(int n) { return n == 0 ? 0 : even(n - 1); }
int even(int n) { return n == 0 ? 1 : odd(n - 1); }
int main(void) {
    int i, s = 0;
    for (i = 0; i < 10; i++) { if (i == 3) continue; if (i == 8) break; s += i; }
    do { s++; } while (s < 30);
    switch (s) { case 29: s = 1; break; case 30: s = 2; /* fall */ case 31: s += 10; break; default: s = 0; }
    int k = 0;
again:
    k++;
    if (k < 5) goto again;
    printf("%d %d %d %d %d\n", s, k, f(10), even(10), odd(7));
    int x = 5, y = (x++, x + 1);
    printf("%d %d %d\n", x, y, x > 3 && y < 3 || !x);
    return 0;
}''', b"12 5 3628800 1 1\n6 7 0\n"),
    "floats": (r'''
#include <stdio.h>
int main(void) {
    float f = 0.1f;
    double d = f;
    printf("%.10f %.3e %g\n", d, 12345.678, 0.0001);
    int i = (int)3.99; int j = (int)-3.99;
    printf("%d %d %d\n", i, j, (int)(f * 100));
    double z = 1.0 / 3.0;
    printf("%.17g %d\n", z, 0.1 + 0.2 == 0.3);
    printf("%5.1f|%-6d|%06.2f\n", 3.14159, 42, 2.5);
    return 0;
}''', b"0.1000000015 1.235e+04 0.0001\n3 -3 10\n0.33333333333333331 0\n  3.1|42    |002.50\n"),
    "knr_and_implicit": (r'''
#include <stdio.h>
main(argc, argv)
int argc;
char *argv[];
{
    int r = twice(21);
    printf("%d %d\n", r, argc);
    return 3;
}
int twice(x) int x; { return 2 * x; }
''', b"42 1\n"),
    "globals": (r'''
#include <stdio.h>
int g = 5;
int arr[4] = { 1, 2 };
int *gp = &arr[1];
char msg[] = "hi";
struct S { int a; const char *name; } table[] = { { 1, "one" }, { 2, "two" } };
static int counter(void) { static int n; return ++n; }
enum Color { RED, GREEN = 5, BLUE };
int main(void) {
    counter(); counter();
    printf("%d %d %d %s %zu %s %d %d\n", g, arr[3], *gp, msg, sizeof table / sizeof table[0],
           table[1].name, counter(), BLUE);
    return 0;
}''', b"5 0 2 hi 2 two 3 6\n"),
    "pragma_pack": (r'''
#include <stdio.h>
#include <stdint.h>
#pragma pack(push)
#pragma pack(1)
struct S5 { int16_t f0; int8_t f1; uint32_t f2; };
struct B { unsigned a : 9; long long b; unsigned c : 30; };
struct S2 { unsigned f0 : 22; };  /* 3 bytes: f0 must be read without touching a 4th */
#pragma pack(pop)
static struct S2 g_121 = {1688};
struct N { char c; int i; };
union U6 { struct S5 f0; uint32_t f2; };
static union U6 g_30 = {{0xBE33L, 0x5AL, 8UL}};
int main(void) {
    struct B b; b.a = 300; b.b = -5; b.c = 123456789;
    g_121.f0 += 0x3FF000;
    printf("%zu %X %zu %zu %u %lld %u %zu %X\n", sizeof(struct S5), g_30.f2, sizeof(struct N), sizeof(struct B),
           b.a, b.b, b.c, sizeof g_121, g_121.f0);
    return 0;
}''', b"7 85ABE33 8 14 300 -5 123456789 3 3FF698\n"),
    "gcc_builtins": (r'''
#include <stdio.h>
int main(void) {
    unsigned long long v = 0x0102030405060708ull;
    printf("%d %d %d %d %d %llx %x\n", __builtin_ffs(40), __builtin_clz(1), __builtin_ctzll(64),
           __builtin_popcountll(v), __builtin_parity(7), __builtin_bswap64(v), __builtin_bswap32(0x11223344));
    return 0;
}''', b"4 31 6 13 1 807060504030201 44332211\n"),
    "statement_expressions": (r'''
#include <stdio.h>
#define MAX(a, b) ({ int _a = (a), _b = (b); _a > _b ? _a : _b; })
int main(void) {
    int i = 0, x = 5;
    int m = MAX(i++, 3);                        /* i++ once: the GNU idiom's point */
    int y = ({ int t = x; if (t > 2) t = t * 10; t; }) + ({ x++; x; });
    ({ x += 100; });
    printf("%d %d %d %d\n", m, i, y, x);
    return 0;
}''', b"3 1 56 106\n"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_output(cfile, name):
    source, expected = PROGRAMS[name]
    path = cfile(source, f"{name}.c")
    r, out = interp_output(path)
    assert r.status == "ok", (r.status, r.violation, r.note)
    assert out == expected
    ref = gcc_output(path)
    if ref is not None:
        assert out == ref[1], "interpreter and gcc disagree"
        assert (r.exit_code or 0) == ref[0]


def test_exit_status_and_argv(cfile):
    path = cfile(r'''
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) { printf("%s %d\n", argv[1], atoi(argv[2]) + 1); exit(argc); }''')
    r, out = interp_output(path, argv=["abc", "41"])
    assert out == b"abc 42\n"
    assert r.exit_code == 3


def test_ilp32_widths(cfile):
    path = cfile(r'''
#include <stdio.h>
int main(void) { printf("%zu %zu %zu %d\n", sizeof(long), sizeof(void *), sizeof(long long), (long)-1 < 1u); return 0; }''')
    r, out = interp_output(path, data_model="ILP32")
    assert out == b"4 4 8 0\n"
    r, out = interp_output(path, data_model="LP64")
    assert out == b"8 8 8 1\n"

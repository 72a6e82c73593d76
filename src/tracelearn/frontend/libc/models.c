/* Library functions tracelearn models in C: both engines (interpreter and
   bounded model checker) run these bodies, so they share one meaning.
   A body is linked in only when the program calls the function and does not
   define it itself. */
#include <stddef.h>

void *memcpy(void *dest, const void *src, size_t n) {
    unsigned char *d = dest;
    const unsigned char *s = src;
    for (size_t i = 0; i < n; i++) d[i] = s[i];
    return dest;
}

void *memmove(void *dest, const void *src, size_t n) {
    unsigned char *d = dest;
    const unsigned char *s = src;
    if (d < s) {
        for (size_t i = 0; i < n; i++) d[i] = s[i];
    } else {
        for (size_t i = n; i > 0; i--) d[i - 1] = s[i - 1];
    }
    return dest;
}

void *memset(void *s, int c, size_t n) {
    unsigned char *p = s;
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)c;
    return s;
}

int memcmp(const void *s1, const void *s2, size_t n) {
    const unsigned char *a = s1, *b = s2;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

size_t strlen(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

char *strcpy(char *dest, const char *src) {
    size_t i = 0;
    while ((dest[i] = src[i]) != 0) i++;
    return dest;
}

char *strncpy(char *dest, const char *src, size_t n) {
    size_t i = 0;
    for (; i < n && src[i]; i++) dest[i] = src[i];
    for (; i < n; i++) dest[i] = 0;
    return dest;
}

char *strcat(char *dest, const char *src) {
    strcpy(dest + strlen(dest), src);
    return dest;
}

int strcmp(const char *s1, const char *s2) {
    const unsigned char *a = (const unsigned char *)s1, *b = (const unsigned char *)s2;
    while (*a && *a == *b) { a++; b++; }
    return (*a > *b) - (*a < *b);
}

int strncmp(const char *s1, const char *s2, size_t n) {
    const unsigned char *a = (const unsigned char *)s1, *b = (const unsigned char *)s2;
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i] || !a[i]) return (a[i] > b[i]) - (a[i] < b[i]);
    }
    return 0;
}

char *strchr(const char *s, int c) {
    for (;; s++) {
        if (*s == (char)c) return (char *)s;
        if (!*s) return NULL;
    }
}

int abs(int j) { return j < 0 ? -j : j; }
long labs(long j) { return j < 0 ? -j : j; }
long long llabs(long long j) { return j < 0 ? -j : j; }

int isdigit(int c) { return c >= '0' && c <= '9'; }
int isspace(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
int isupper(int c) { return c >= 'A' && c <= 'Z'; }
int islower(int c) { return c >= 'a' && c <= 'z'; }
int isalpha(int c) { return isupper(c) || islower(c); }
int isalnum(int c) { return isalpha(c) || isdigit(c); }
int toupper(int c) { return islower(c) ? c - 'a' + 'A' : c; }
int tolower(int c) { return isupper(c) ? c - 'A' + 'a' : c; }

long strtol(const char *nptr, char **endptr, int base) {
    const char *s = nptr;
    long v = 0;
    int neg = 0, any = 0;
    while (isspace(*s)) s++;
    if (*s == '-') { neg = 1; s++; } else if (*s == '+') s++;
    if ((base == 0 || base == 16) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { s += 2; base = 16; }
    else if (base == 0 && s[0] == '0') base = 8;
    else if (base == 0) base = 10;
    for (;; s++) {
        int d = 0;  /* initialized: an indeterminate value would be drawn as an input */
        if (isdigit(*s)) d = *s - '0';
        else if (islower(*s)) d = *s - 'a' + 10;
        else if (isupper(*s)) d = *s - 'A' + 10;
        else break;
        if (d >= base) break;
        v = v * base + d;
        any = 1;
    }
    if (endptr) *endptr = (char *)(any ? s : nptr);
    return neg ? -v : v;
}

unsigned long strtoul(const char *nptr, char **endptr, int base) {
    return (unsigned long)strtol(nptr, endptr, base);
}

long atol(const char *nptr) { return strtol(nptr, NULL, 10); }
int atoi(const char *nptr) { return (int)strtol(nptr, NULL, 10); }

/* GCC builtins that generated code (csmith) uses. Undefined inputs (clz/ctz of 0)
   give the bit width. */
int __builtin_popcountll(unsigned long long x) { int n = 0; while (x) { n += (int)(x & 1u); x >>= 1; } return n; }
int __builtin_popcount(unsigned int x) { return __builtin_popcountll(x); }
int __builtin_popcountl(unsigned long x) { return __builtin_popcountll(x); }
int __builtin_parityll(unsigned long long x) { return __builtin_popcountll(x) & 1; }
int __builtin_parity(unsigned int x) { return __builtin_popcountll(x) & 1; }
int __builtin_parityl(unsigned long x) { return __builtin_popcountll(x) & 1; }
int __builtin_ffsll(long long x) {
    unsigned long long u = (unsigned long long)x;
    int i;
    if (!u) return 0;
    for (i = 1; !(u & 1u); i++) u >>= 1;
    return i;
}
int __builtin_ffs(int x) { return __builtin_ffsll((long long)(unsigned int)x); }
int __builtin_ffsl(long x) { return __builtin_ffsll((long long)(unsigned long)x); }
int __builtin_ctzll(unsigned long long x) { int n = 0; if (!x) return 64; while (!(x & 1u)) { x >>= 1; n++; } return n; }
int __builtin_ctz(unsigned int x) { return x ? __builtin_ctzll(x) : 32; }
int __builtin_ctzl(unsigned long x) { return x ? __builtin_ctzll(x) : (int)(8 * sizeof(long)); }
int __builtin_clzll(unsigned long long x) { int n = 0; if (!x) return 64; while (!(x & 0x8000000000000000ull)) { x <<= 1; n++; } return n; }
int __builtin_clz(unsigned int x) { return x ? __builtin_clzll(x) - 32 : 32; }
int __builtin_clzl(unsigned long x) { return x ? __builtin_clzll(x) - (64 - (int)(8 * sizeof(long))) : (int)(8 * sizeof(long)); }
unsigned short __builtin_bswap16(unsigned short x) { return (unsigned short)((x >> 8) | (x << 8)); }
unsigned int __builtin_bswap32(unsigned int x) {
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}
unsigned long long __builtin_bswap64(unsigned long long x) {
    return ((unsigned long long)__builtin_bswap32((unsigned int)x) << 32) | __builtin_bswap32((unsigned int)(x >> 32));
}
int __builtin_abs(int j) { return j < 0 ? -j : j; }
long __builtin_labs(long j) { return j < 0 ? -j : j; }

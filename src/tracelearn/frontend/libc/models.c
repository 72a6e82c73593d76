/* Library functions tracelearn models in C: both engines (interpreter and
   bounded model checker) run these bodies, so they share one meaning.
   A body is linked in only when the program calls the function and does not
   define it itself. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

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

/* ---- more of string.h, as glibc behaves */

char *strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

char *strndup(const char *s, size_t n) {
    size_t k = 0;
    while (k < n && s[k]) k++;
    char *p = malloc(k + 1);
    if (p) {
        memcpy(p, s, k);
        p[k] = 0;
    }
    return p;
}

char *strrchr(const char *s, int c) {
    const char *found = 0;
    for (;; s++) {
        if (*s == (char)c) found = s;
        if (!*s) return (char *)found;
    }
}

char *strstr(const char *hay, const char *needle) {
    if (!*needle) return (char *)hay;
    for (; *hay; hay++) {
        size_t i = 0;
        while (needle[i] && hay[i] == needle[i]) i++;
        if (!needle[i]) return (char *)hay;
    }
    return 0;
}

void *memchr(const void *s, int c, size_t n) {
    const unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        if (p[i] == (unsigned char)c) return (void *)(p + i);
    return 0;
}

void *memmem(const void *hay, size_t hn, const void *needle, size_t nn) {
    const unsigned char *h = hay, *n = needle;
    if (nn == 0) return (void *)h;
    for (size_t i = 0; i + nn <= hn; i++) {
        size_t k = 0;
        while (k < nn && h[i + k] == n[k]) k++;
        if (k == nn) return (void *)(h + i);
    }
    return 0;
}

/* glibc's messages for the errno values errno.h names */
char *strerror(int e) {
    static char unknown[32];
    switch (e) {
    case 0: return "Success";
    case EPERM: return "Operation not permitted";
    case ENOENT: return "No such file or directory";
    case EINTR: return "Interrupted system call";
    case EIO: return "Input/output error";
    case EBADF: return "Bad file descriptor";
    case EAGAIN: return "Resource temporarily unavailable";
    case ENOMEM: return "Cannot allocate memory";
    case EACCES: return "Permission denied";
    case EEXIST: return "File exists";
    case ENOTDIR: return "Not a directory";
    case EISDIR: return "Is a directory";
    case EINVAL: return "Invalid argument";
    case EMFILE: return "Too many open files";
    case ENOSPC: return "No space left on device";
    case EPIPE: return "Broken pipe";
    case EDOM: return "Numerical argument out of domain";
    case ERANGE: return "Numerical result out of range";
    case ENAMETOOLONG: return "File name too long";
    case ELOOP: return "Too many levels of symbolic links";
    }
    /* "Unknown error N" */
    char digits[12];
    int k = 0;
    unsigned u = e < 0 ? -(unsigned)e : (unsigned)e;
    do { digits[k++] = (char)('0' + u % 10); u /= 10; } while (u);
    strcpy(unknown, "Unknown error ");
    int at = 14;
    if (e < 0) unknown[at++] = '-';
    while (k) unknown[at++] = digits[--k];
    unknown[at] = 0;
    return unknown;
}

/* Stable (as glibc's merge sort is when it has the memory): elements that compare
   equal keep their order, so every program sees glibc's result. */
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    unsigned char *a = base;
    unsigned char *tmp = malloc(size ? size : 1);
    for (size_t i = 1; i < n; i++) {
        memcpy(tmp, a + i * size, size);
        size_t j = i;
        while (j > 0 && cmp(a + (j - 1) * size, tmp) > 0) {
            memcpy(a + j * size, a + (j - 1) * size, size);
            j--;
        }
        memcpy(a + j * size, tmp, size);
    }
    free(tmp);
}

/* ---- libgen.h (POSIX: both may modify their argument) */

char *dirname(char *path) {
    static char dot[] = ".";
    static char slash[] = "/";
    if (!path || !*path) return dot;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    while (n > 0 && path[n - 1] != '/') n--;
    if (n == 0) return dot;
    while (n > 1 && path[n - 1] == '/') n--;
    if (n == 1 && path[0] == '/') return slash;
    path[n] = 0;
    return path;
}

char *basename(char *path) {
    static char dot[] = ".";
    if (!path || !*path) return dot;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') path[--n] = 0;
    char *last = strrchr(path, '/');
    return last && last[1] ? last + 1 : path;
}

/* ---- stdio.h over the standard streams (fopen gives no stream: NULL) */

int fileno(FILE *f) {
    long h = (long)f;
    if (h >= 1 && h <= 3) return (int)h - 1;
    errno = EBADF;
    return -1;
}

size_t fwrite(const void *ptr, size_t size, size_t n, FILE *f) {
    const unsigned char *p = ptr;
    for (size_t i = 0; i < size * n; i++)
        if (fputc(p[i], f) == EOF) return i / size;
    return n;
}

size_t fread(void *ptr, size_t size, size_t n, FILE *f) {
    unsigned char *p = ptr;
    for (size_t i = 0; i < size * n; i++) {
        int c = fgetc(f);
        if (c == EOF) return i / size;
        p[i] = (unsigned char)c;
    }
    return n;
}

/* fopen: the real file system in `tracelearn run`; elsewhere an input decides
   whether the file opens, and its bytes are inputs (reading modes only are modelled). */
FILE *__tl_fopen(const char *path, const char *mode, int *err);

void perror(const char *s) {
    if (s && *s) fprintf(stderr, "%s: ", s);
    fprintf(stderr, "%s\n", strerror(errno));
}

FILE *fopen(const char *path, const char *mode) {
    int err = 0;
    FILE *f = __tl_fopen(path, mode, &err);
    if (!f) errno = err;
    return f;
}

/* ---- the environment: the real one in `tracelearn run`, an input elsewhere.
   __tl_getenv and __tl_realpath answer 0 (unset, or failed), 1 (the value is in
   buf) or 2 (the outside world decides: the value is an input, drawn here). */

#define __TL_ENV_DRAWN 15
#define __TL_ENV_SLOTS 8
#define __TL_ENV_VALUE 4096
int __tl_getenv(const char *name, char *buf, size_t n);
int __tl_realpath(const char *path, char *buf, size_t n);

char *getenv(const char *name) {
    /* one buffer per name: a value stays valid while the program keeps it */
    static char names[__TL_ENV_SLOTS][64];
    static char values[__TL_ENV_SLOTS][__TL_ENV_VALUE];
    static char set[__TL_ENV_SLOTS];  /* the environment does not change during a run */
    static int used;
    for (int i = 0; i < used; i++)
        if (strcmp(names[i], name) == 0) return set[i] ? values[i] : 0;
    if (used == __TL_ENV_SLOTS || strlen(name) >= 64) return 0;
    int slot = used++;
    strcpy(names[slot], name);
    int r = __tl_getenv(name, values[slot], __TL_ENV_VALUE);
    if (r == 2) {
        for (int i = 0; i < __TL_ENV_DRAWN; i++) values[slot][i] = __VERIFIER_nondet_char();
        values[slot][__TL_ENV_DRAWN] = 0;
    }
    set[slot] = r != 0;
    return set[slot] ? values[slot] : 0;
}

char *realpath(const char *path, char *resolved) {
    char *out = resolved ? resolved : malloc(PATH_MAX);
    if (!out) return 0;
    int r = __tl_realpath(path, out, PATH_MAX);
    if (r == 2 && strlen(path) < PATH_MAX) {
        strcpy(out, path);
        return out;
    }
    if (r != 1) {
        if (!resolved) free(out);
        errno = ENOENT;
        return 0;
    }
    return out;
}

static int __tl_stat_into(const char *path, int follow, struct stat *st) {
    long long info[8];
    int err = __tl_stat(path, follow, info);
    if (err) {
        errno = err;
        return -1;
    }
    st->st_rdev = 0;
    st->st_blksize = 4096;
    st->st_blocks = (info[6] + 511) / 512;
    st->st_atime = st->st_ctime = info[7];
    st->st_dev = info[0];
    st->st_ino = info[1];
    st->st_mode = info[2];
    st->st_nlink = info[3];
    st->st_uid = info[4];
    st->st_gid = info[5];
    st->st_size = info[6];
    st->st_mtime = info[7];
    return 0;
}

int stat(const char *path, struct stat *st) { return __tl_stat_into(path, 1, st); }

int lstat(const char *path, struct stat *st) { return __tl_stat_into(path, 0, st); }


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
#include <sys/time.h>
#include <ctype.h>

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

/* ---- time.h: the clock (real in `run`, inputs elsewhere) and UTC calendar
   arithmetic as glibc computes it (days from civil dates: H. Hinnant's algorithms) */

time_t time(time_t *t) {
    long long now[2];
    __tl_now(now);
    if (t) *t = now[0];
    return now[0];
}

int gettimeofday(struct timeval *tv, void *tz) {
    long long now[2];
    __tl_now(now);
    if (tv) {
        tv->tv_sec = now[0];
        tv->tv_usec = now[1];
    }
    return 0;
}

double difftime(time_t end, time_t start) { return (double)end - (double)start; }

/* (names by switch: a static table of pointers would need initialisation code) */
static const char *__tl_day(int i) {
    switch (i) {
    case 0: return "Sunday";
    case 1: return "Monday";
    case 2: return "Tuesday";
    case 3: return "Wednesday";
    case 4: return "Thursday";
    case 5: return "Friday";
    default: return "Saturday";
    }
}

static const char *__tl_month(int i) {
    switch (i) {
    case 0: return "January";
    case 1: return "February";
    case 2: return "March";
    case 3: return "April";
    case 4: return "May";
    case 5: return "June";
    case 6: return "July";
    case 7: return "August";
    case 8: return "September";
    case 9: return "October";
    case 10: return "November";
    default: return "December";
    }
}

static int __tl_leap(long long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int __tl_yday(long long y, int mon, int mday) {
    static const short before[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    return before[mon] + mday - 1 + (mon > 1 && __tl_leap(y));
}

static long long __tl_days_from_civil(long long y, int m, int d) {
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int __tl_wday(long long days) { return (int)(((days % 7) + 11) % 7); }  /* 1970-01-01: Thursday */

struct tm *gmtime_r(const time_t *tp, struct tm *tm) {
    long long t = *tp, days = t / 86400, rem = t % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    tm->tm_hour = (int)(rem / 3600);
    tm->tm_min = (int)(rem / 60 % 60);
    tm->tm_sec = (int)(rem % 60);
    tm->tm_wday = __tl_wday(days);
    long long z = days + 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    int d = (int)(doy - (153 * mp + 2) / 5 + 1);
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    long long y = yoe + era * 400 + (m <= 2);
    tm->tm_year = (int)(y - 1900);
    tm->tm_mon = m - 1;
    tm->tm_mday = d;
    tm->tm_yday = __tl_yday(y, m - 1, d);
    tm->tm_isdst = 0;
    tm->tm_gmtoff = 0;
    tm->tm_zone = "GMT";
    return tm;
}

struct tm *gmtime(const time_t *t) {
    static struct tm tm;
    return gmtime_r(t, &tm);
}

struct tm *localtime_r(const time_t *t, struct tm *out) {
    gmtime_r(t, out);
    out->tm_zone = "UTC";
    return out;
}

struct tm *localtime(const time_t *t) {
    static struct tm tm;
    return localtime_r(t, &tm);
}

time_t timegm(struct tm *tm) {
    long long y = tm->tm_year + 1900LL, mon = tm->tm_mon;
    y += mon / 12;
    mon %= 12;
    if (mon < 0) {
        mon += 12;
        y--;
    }
    long long days = __tl_days_from_civil(y, (int)mon + 1, 1) + tm->tm_mday - 1;
    time_t t = (time_t)(days * 86400 + tm->tm_hour * 3600LL + tm->tm_min * 60LL + tm->tm_sec);
    gmtime_r(&t, tm);  /* the fields normalised, as glibc leaves them */
    return t;
}

time_t mktime(struct tm *tm) {
    time_t t = timegm(tm);
    tm->tm_zone = "UTC";
    return t;
}

/* strftime's output: append up to the limit; 0 when it does not fit (C's rule) */
static int __tl_put(char *s, size_t max, size_t *n, const char *text) {
    while (*text) {
        if (*n + 1 >= max) return 0;
        s[(*n)++] = *text++;
    }
    return 1;
}

static int __tl_put_num(char *s, size_t max, size_t *n, long long v, int width, char pad) {
    char digits[24];
    int k = 0, neg = v < 0;
    unsigned long long u = neg ? -(unsigned long long)v : (unsigned long long)v;
    do {
        digits[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    char text[32];
    int at = 0;
    if (neg) text[at++] = '-';
    for (int i = k + neg; i < width; i++) text[at++] = pad;
    while (k) text[at++] = digits[--k];
    text[at] = 0;
    return __tl_put(s, max, n, text);
}

static char *__tl_abbr(char *out, const char *name) {
    out[0] = name[0];
    out[1] = name[1];
    out[2] = name[2];
    out[3] = 0;
    return out;
}

size_t strftime(char *s, size_t max, const char *f, const struct tm *tm) {
    size_t n = 0;
    char sub[64];
    int ok = 1;
    for (; *f && ok; f++) {
        if (*f != '%' || !f[1]) {
            char one[2] = {*f, 0};
            ok = __tl_put(s, max, &n, one);
            continue;
        }
        int hour12 = tm->tm_hour % 12 ? tm->tm_hour % 12 : 12;
        const char *composite = 0;
        switch (*++f) {
        case 'a': ok = __tl_put(s, max, &n, __tl_abbr(sub, __tl_day(tm->tm_wday % 7))); break;
        case 'A': ok = __tl_put(s, max, &n, __tl_day(tm->tm_wday % 7)); break;
        case 'b': case 'h': ok = __tl_put(s, max, &n, __tl_abbr(sub, __tl_month(tm->tm_mon % 12))); break;
        case 'B': ok = __tl_put(s, max, &n, __tl_month(tm->tm_mon % 12)); break;
        case 'C': ok = __tl_put_num(s, max, &n, (tm->tm_year + 1900LL) / 100, 2, '0'); break;
        case 'd': ok = __tl_put_num(s, max, &n, tm->tm_mday, 2, '0'); break;
        case 'e': ok = __tl_put_num(s, max, &n, tm->tm_mday, 2, ' '); break;
        case 'H': ok = __tl_put_num(s, max, &n, tm->tm_hour, 2, '0'); break;
        case 'I': ok = __tl_put_num(s, max, &n, hour12, 2, '0'); break;
        case 'j': ok = __tl_put_num(s, max, &n, tm->tm_yday + 1, 3, '0'); break;
        case 'k': ok = __tl_put_num(s, max, &n, tm->tm_hour, 2, ' '); break;
        case 'l': ok = __tl_put_num(s, max, &n, hour12, 2, ' '); break;
        case 'm': ok = __tl_put_num(s, max, &n, tm->tm_mon + 1, 2, '0'); break;
        case 'M': ok = __tl_put_num(s, max, &n, tm->tm_min, 2, '0'); break;
        case 'n': ok = __tl_put(s, max, &n, "\n"); break;
        case 'p': ok = __tl_put(s, max, &n, tm->tm_hour < 12 ? "AM" : "PM"); break;
        case 'P': ok = __tl_put(s, max, &n, tm->tm_hour < 12 ? "am" : "pm"); break;
        case 's': {
            struct tm copy = *tm;
            ok = __tl_put_num(s, max, &n, (long long)timegm(&copy), 1, '0');
            break;
        }
        case 'S': ok = __tl_put_num(s, max, &n, tm->tm_sec, 2, '0'); break;
        case 't': ok = __tl_put(s, max, &n, "\t"); break;
        case 'u': ok = __tl_put_num(s, max, &n, tm->tm_wday ? tm->tm_wday : 7, 1, '0'); break;
        case 'w': ok = __tl_put_num(s, max, &n, tm->tm_wday, 1, '0'); break;
        case 'y': ok = __tl_put_num(s, max, &n, (tm->tm_year + 1900LL) % 100, 2, '0'); break;
        case 'Y': ok = __tl_put_num(s, max, &n, tm->tm_year + 1900LL, 1, '0'); break;
        case 'z': ok = __tl_put(s, max, &n, "+0000"); break;
        case 'Z': ok = __tl_put(s, max, &n, tm->tm_zone ? tm->tm_zone : "GMT"); break;
        case '%': ok = __tl_put(s, max, &n, "%"); break;
        case 'c': composite = "%a %b %e %H:%M:%S %Y"; break;
        case 'D': composite = "%m/%d/%y"; break;
        case 'F': composite = "%Y-%m-%d"; break;
        case 'r': composite = "%I:%M:%S %p"; break;
        case 'R': composite = "%H:%M"; break;
        case 'T': composite = "%H:%M:%S"; break;
        case 'x': composite = "%m/%d/%y"; break;
        case 'X': composite = "%H:%M:%S"; break;
        default: {
            char two[3] = {'%', *f, 0};
            ok = __tl_put(s, max, &n, two);
        }
        }
        if (composite) {
            size_t k = strftime(sub, sizeof sub, composite, tm);
            ok = __tl_put(s, max, &n, sub) && (k || !*composite);
        }
    }
    if (!ok || n >= max) return 0;
    s[n] = 0;
    return n;
}

/* strptime: digits (at most `width`), names, literals; whitespace in the format
   matches any run of whitespace. With the year, month and day known, the day of
   the week and of the year are computed, as glibc does. */
static const char *__tl_digits(const char *s, int width, int *out) {
    while (isspace((unsigned char)*s)) s++;
    int v = 0, k = 0, neg = 0;
    if (*s == '-' || *s == '+') neg = *s++ == '-';
    for (; k < width && isdigit((unsigned char)*s); k++) v = v * 10 + (*s++ - '0');
    if (!k) return 0;
    *out = neg ? -v : v;
    return s;
}

static const char *__tl_name(const char *s, const char *(*names)(int), int count, int *out) {
    for (int i = 0; i < count; i++) {
        const char *name = names(i);
        size_t full = strlen(name), k = 0;
        while (k < full && s[k] && tolower((unsigned char)s[k]) == tolower((unsigned char)name[k])) k++;
        if (k == full || k == 3) {
            *out = i;
            return s + k;
        }
    }
    return 0;
}

char *strptime(const char *s, const char *f, struct tm *tm) {
    int have_year = 0, have_mon = 0, have_mday = 0, v;
    for (; *f && s; f++) {
        if (isspace((unsigned char)*f)) {
            while (isspace((unsigned char)*s)) s++;
            continue;
        }
        if (*f != '%' || !f[1]) {
            if (*s != *f) return 0;
            s++;
            continue;
        }
        switch (*++f) {
        case 'Y': if ((s = __tl_digits(s, 4, &v))) { tm->tm_year = v - 1900; have_year = 1; } break;
        case 'y': if ((s = __tl_digits(s, 2, &v))) { tm->tm_year = v < 69 ? v + 100 : v; have_year = 1; } break;
        case 'm': if ((s = __tl_digits(s, 2, &v))) { tm->tm_mon = v - 1; have_mon = 1; } break;
        case 'd': case 'e': if ((s = __tl_digits(s, 2, &v))) { tm->tm_mday = v; have_mday = 1; } break;
        case 'H': if ((s = __tl_digits(s, 2, &v))) tm->tm_hour = v; break;
        case 'M': if ((s = __tl_digits(s, 2, &v))) tm->tm_min = v; break;
        case 'S': if ((s = __tl_digits(s, 2, &v))) tm->tm_sec = v; break;
        case 'j': if ((s = __tl_digits(s, 3, &v))) tm->tm_yday = v - 1; break;
        case 'b': case 'B': case 'h':
            if ((s = __tl_name(s, __tl_month, 12, &v))) { tm->tm_mon = v; have_mon = 1; }
            break;
        case 'a': case 'A': if ((s = __tl_name(s, __tl_day, 7, &v))) tm->tm_wday = v; break;
        case 'T': s = strptime(s, "%H:%M:%S", tm); break;
        case 'R': s = strptime(s, "%H:%M", tm); break;
        case 'D': s = strptime(s, "%m/%d/%y", tm); have_year = have_mon = have_mday = s != 0; break;
        case 'F': s = strptime(s, "%Y-%m-%d", tm); have_year = have_mon = have_mday = s != 0; break;
        case 'n': case 't': while (isspace((unsigned char)*s)) s++; break;
        case '%': if (*s++ != '%') return 0; break;
        default: return 0;  /* a conversion this model does not know: no match */
        }
    }
    if (!s) return 0;
    if (have_year && have_mon && have_mday) {
        long long y = tm->tm_year + 1900LL;
        tm->tm_wday = __tl_wday(__tl_days_from_civil(y, tm->tm_mon + 1, tm->tm_mday));
        tm->tm_yday = __tl_yday(y, tm->tm_mon, tm->tm_mday);
    }
    return (char *)s;
}


#ifndef __TL_TIME_H
#define __TL_TIME_H
#include <stddef.h>
#include <sys/types.h>
/* Calendar time in UTC (localtime and mktime too: tracelearn's time zone is UTC).
   time(), clock() and gettimeofday() read the real clock in `tracelearn run` and are
   inputs elsewhere; the conversions are C bodies (frontend/libc/models.c). */
typedef long clock_t;
struct tm {
    int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year, tm_wday, tm_yday, tm_isdst;
    long tm_gmtoff;
    const char *tm_zone;
};
struct timespec {
    time_t tv_sec;
    long tv_nsec;
};
#define CLOCKS_PER_SEC 1000000L
time_t time(time_t *t);
clock_t clock(void);
double difftime(time_t end, time_t start);
struct tm *gmtime_r(const time_t *t, struct tm *out);
struct tm *gmtime(const time_t *t);
struct tm *localtime_r(const time_t *t, struct tm *out);
struct tm *localtime(const time_t *t);
time_t timegm(struct tm *tm);
time_t mktime(struct tm *tm);
size_t strftime(char *s, size_t max, const char *format, const struct tm *tm);
char *strptime(const char *s, const char *format, struct tm *tm);
/* the clock's answer: seconds and microseconds since the epoch */
void __tl_now(long long *now);
#endif

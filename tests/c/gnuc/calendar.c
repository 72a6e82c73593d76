#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>
int main(void) {
    long long ts[] = {0, 1425599507, 1435677542, -1, -86400 * 366LL, 951782400, 4102444800LL, 68256000};
    char buf[128];
    for (int i = 0; i < 8; i++) {
        time_t t = ts[i];
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ %A %a %B %b %e %j %u %w %y %C %I %p %D %F %T %R %s %%", &tm);
        printf("%lld: [%d,%d,%d,%d,%d,%d,%d,%d] %s %ld\n", ts[i], tm.tm_year + 1900, tm.tm_mon, tm.tm_mday,
               tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_wday, tm.tm_yday, buf, (long)timegm(&tm));
        struct tm back;
        memset(&back, 0, sizeof back);
        const char *end = strptime(buf, "%Y-%m-%dT%H:%M:%SZ", &back);
        printf("  strptime: %s [%d,%d,%d,%d,%d,%d,%d,%d] rest=%.10s\n", end ? "ok" : "fail", back.tm_year + 1900,
               back.tm_mon, back.tm_mday, back.tm_hour, back.tm_min, back.tm_sec, back.tm_wday, back.tm_yday,
               end ? end : "");
    }
    struct tm x;
    memset(&x, 0, sizeof x);
    printf("%s\n", strptime("Tuesday, June 30, 2015", "%A, %B %e, %Y", &x) ? "ok" : "fail");
    printf("[%d,%d,%d,%d,%d]\n", x.tm_year, x.tm_mon, x.tm_mday, x.tm_wday, x.tm_yday);
    printf("%zu\n", strftime(buf, 5, "%Y-%m", &x));
    x.tm_mon = 14; x.tm_mday = 40;
    long g = (long)timegm(&x);
    printf("%ld %d %d %d\n", g, x.tm_year, x.tm_mon, x.tm_mday);
    return 0;
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libgen.h>
#include <math.h>
static int cmp(const void *a, const void *b) { return (*(const int *)a / 10) - (*(const int *)b / 10); }
int main(void) {
    char p1[] = "/usr/lib/", p2[] = "a/b", p3[] = "file", p4[] = "/";
    printf("%s %s %s %s\n", dirname(p1), dirname(p2), dirname(p3), dirname(p4));
    char q1[] = "/usr/lib/", q2[] = "a/b";
    printf("%s %s\n", basename(q1), basename(q2));
    const char *h = getenv("TL_TEST_HOME");
    printf("home=%s unset=%p\n", h ? h : "(null)", (void *)getenv("TL_NO_SUCH_VAR"));
    char *d = strdup("hello world");
    printf("%s|%s|%s|%d\n", strstr(d, "o w"), strrchr(d, 'o'), (char *)memchr(d, 'w', 11), memmem(d, 11, "ld", 2) == d + 9);
    int v[] = {31, 12, 35, 10, 19, 33};
    qsort(v, 6, sizeof v[0], cmp);
    for (int i = 0; i < 6; i++) printf("%d ", v[i]);
    printf("\n%s|%s|%s\n", strerror(2), strerror(0), strerror(9999));
    double z = 0.0;
    printf("%d %d %d %d %d\n", isnan(z / z), isinf(1 / z), isnormal(1e-310), isnormal(1.0), isfinite(z));
    char rp[4096];
    printf("%s %p\n", realpath("/usr/../usr/bin", rp), (void *)realpath("/no/such/dir", 0));
    fwrite("abc\n", 1, 4, stdout);
    printf("%d %d\n", fileno(stdout), fileno(stderr));
    free(d);
    return 0;
}

#include <stdio.h>
#include <errno.h>
#include <string.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "r");
    if (!f) { int e = errno; perror(argv[1]); printf("errno %d %s\n", e, strerror(e)); return 1; }
    char line[64];
    int n = 0, x = 0;
    if (fscanf(f, "%d", &x) == 1) printf("first %d\n", x);
    while (fgets(line, sizeof line, f)) { n++; printf("%d: %s", n, line); }
    printf("eof %d\n", feof(f));
    fclose(f);
    FILE *w = fopen(argv[2], "w");
    fprintf(w, "written %d\n", n);
    fputs("end\n", w);
    fclose(w);
    return 0;
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    char *p = malloc(3);
    memcpy(p, "abc", 3);            /* no NUL */
    printf("[%.3s] [%.*s] [%.0s]\n", p, 2, p, p);
    char q[2] = {'x', 'y'};
    printf("[%.2s]\n", q);
    free(p);
    return 0;
}

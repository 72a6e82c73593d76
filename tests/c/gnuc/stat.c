#include <stdio.h>
#include <sys/stat.h>
#include <errno.h>
#include <string.h>
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int r = stat(argv[i], &st);
        if (r) { int e = errno; printf("%s: %d %s\n", argv[i], r, strerror(e)); continue; }
        printf("%s: dir %d reg %d size>0 %d\n", argv[i], S_ISDIR(st.st_mode), S_ISREG(st.st_mode), st.st_size > 0);
    }
    return 0;
}

#ifndef __TL_LIBGEN_H
#define __TL_LIBGEN_H
char *dirname(char *path);
char *basename(char *path);
#endif

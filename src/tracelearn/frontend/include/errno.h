#ifndef __TL_ERRNO_H
#define __TL_ERRNO_H
extern int errno;
#define EDOM 33
#define ERANGE 34
#endif

#ifndef __TL_SYS_TYPES_H
#define __TL_SYS_TYPES_H
#include <stddef.h>
typedef __TL_PTRDIFF_T ssize_t;
typedef long off_t;
typedef unsigned int mode_t;
typedef unsigned long dev_t;
typedef unsigned long ino_t;
typedef unsigned long nlink_t;
typedef unsigned int uid_t;
typedef unsigned int gid_t;
typedef int pid_t;
typedef long time_t;
typedef long blksize_t;
typedef long blkcnt_t;
#endif

#ifndef __TL_SYS_TYPES_H
#define __TL_SYS_TYPES_H
#include <stddef.h>
/* The host's own sys/types.h when there is one and the data model is the host's
   (LP64: other system headers rely on the internal names it defines, __socklen_t,
   ...), else these. */
#if defined(__has_include_next) && defined(__TL_HOST_DATA_MODEL)
#if __has_include_next(<sys/types.h>)
#define __TL_HOST_SYS_TYPES 1
#include_next <sys/types.h>
#endif
#endif
#ifndef __TL_HOST_SYS_TYPES
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
#endif

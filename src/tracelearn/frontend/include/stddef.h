#ifndef __TL_STDDEF_H
#define __TL_STDDEF_H
#ifndef NULL
#define NULL ((void*)0)
#endif
typedef __TL_SIZE_T size_t;
typedef __TL_PTRDIFF_T ptrdiff_t;
typedef int wchar_t;
#define offsetof(type, member) ((size_t)&(((type*)0)->member))
#endif

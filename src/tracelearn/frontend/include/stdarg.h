#ifndef __TL_STDARG_H
#define __TL_STDARG_H
typedef char *va_list;
#endif

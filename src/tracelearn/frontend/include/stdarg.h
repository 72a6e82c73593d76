#ifndef __TL_STDARG_H
#define __TL_STDARG_H
/* A call to a variadic function of the program passes its extra arguments in a
   block of 8-byte slots (x86-64's layout) whose address the callee receives as the
   hidden parameter __tl_va (see the frontend's va_block). va_list walks the block. */
typedef char *va_list;
typedef char *__gnuc_va_list;
#define __TL_VA_SLOT(T) ((sizeof(T) + 7) & ~(__TL_SIZE_T)7)
#define va_start(ap, last) ((void)((ap) = __tl_va))
#define va_arg(ap, T) (*(T *)(((ap) += __TL_VA_SLOT(T)) - __TL_VA_SLOT(T)))
#define va_end(ap) ((void)0)
#define va_copy(dst, src) ((void)((dst) = (src)))
#define __va_copy(dst, src) va_copy(dst, src)
#endif

#ifndef __TL_ASSERT_H
#define __TL_ASSERT_H
/* assert is a tracelearn built-in: a checked property, not a macro. */
void assert(_Bool condition);
#endif

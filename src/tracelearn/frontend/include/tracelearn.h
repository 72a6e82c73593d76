#ifndef __TL_TRACELEARN_H
#define __TL_TRACELEARN_H
/* Stream filters (tracelearn learn-filter, Sigma*). A filter reads its input stream
   with tl_in() (the current element, then move to the next) and tl_peek(k) (the
   element k places on, without moving; k a constant from 0 to 63), and writes with
   tl_out(). A read at the end of the input stops the filter. tl_eof() is 1 when the
   whole input has been consumed, letting a filter write a last output before it
   returns. */
int tl_in(void);
int tl_peek(int k);
int tl_eof(void);
void tl_out(int c);
#endif

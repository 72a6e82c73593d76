#include <tracelearn.h>

/* Flags computed without a branch: the state is one of few values, though its term
   reads every element so far. Each has a branching twin in the class. */

void toggle(void) {
  int st = 0;
  for (;;) {
    int c = tl_in();
    st ^= (c == 7);
    if (st) tl_out(c); else tl_out(0);
  }
}

void toggle_branching(void) {
  int st = 0;
  for (;;) {
    int c = tl_in();
    if (c == 7) st = !st;
    if (st) tl_out(c); else tl_out(0);
  }
}

/* the flag is written out: data, still one of two values */
void parity_out(void) {
  int st = 0;
  for (;;) {
    int c = tl_in();
    st ^= (c < 0);
    tl_out(st);
  }
}

void mod3(void) {
  int m = 0;
  for (;;) {
    int c = tl_in();
    m = (m + (c == 'x')) % 3;
    tl_out(m == 2 ? '*' : c);
  }
}

int escaped;

void global_flag(void) {
  for (;;) {
    int c = tl_in();
    escaped = escaped ^ (c == '\\');
    tl_out(escaped ? c : '.');
  }
}

/* the flag keeps a bit of the input, not a comparison */
void low_bit(void) {
  int st = 0;
  for (;;) {
    int c = tl_in();
    st ^= (c & 1);
    tl_out(st ? c : '.');
  }
}

void two_bits(void) {
  int st = 0;
  for (;;) {
    int c = tl_in();
    st = (st + (c & 3)) & 3;
    tl_out(st == 2 ? '*' : c);
  }
}

/* h takes ever new values: no finite split; its low bit is the parity of the a's, but
   the state holds h, whose term grows with the input */
void many_values(void) {
  unsigned h = 0;
  for (;;) {
    int c = tl_in();
    h = h * 31 + (c == 'a');
    tl_out(h & 1);
  }
}

/* a count without a branch: a counter increased by a comparison, one value above 3 */
void count_a(void) {
  int n = 0;
  for (;;) {
    int c = tl_in();
    n += (c == 'a');
    tl_out(n > 3 ? '!' : c);
  }
}

void count_a_branching(void) {
  int n = 0;
  for (;;) {
    int c = tl_in();
    if (c == 'a')
      n++;
    tl_out(n > 3 ? '!' : c);
  }
}

/* a flag read mid-step as an index: the output's term keeps the value of a read out of
   bounds on a branch no input takes */
void index_by_flag(void) {
  int m = 0;
  char t[3] = {'x', 'y', 'z'};
  for (;;) {
    int c = tl_in();
    m = (m + (c == 1)) % 3;
    tl_out(t[m] + c);
  }
}

/* int32 elements (a step's loop was taken for an input-free one) */
void big_twin(void) {
  int st = 0;
  for (;;) {
    int c = tl_in();
    if (c == 32767)
      st = -200;
    else if (c == -32768)
      st = 200;
    tl_out(st + c);
  }
}

/* flags in memory: an address-taken local read through a pointer, a struct's field */
static int read_flag(int *p) { return *p; }

void flag_by_pointer(void) {
  int st = 0;
  for (;;) {
    int c = tl_in();
    st ^= (c == 7);
    tl_out(read_flag(&st) ? c : '.');
  }
}

struct flag_box { int on; };

void flag_in_struct(void) {
  struct flag_box b = {0};
  for (;;) {
    int c = tl_in();
    b.on ^= (c == 7);
    tl_out(b.on ? c : '.');
  }
}

/* Model-checking harness for MediaBench's ADPCM coder (our own; Groce & Kroening's
   drivers were not published). Build with -I <benchmarks>/mediabench/adpcm.
   Property: after coding, the coder's reconstructed sample (state.valprev) follows
   the input within 2000: false for steep inputs, which the minimizer shrinks. */
#include "adpcm.c"

#define N 4
short nondet_short(void);

int main(void) {
    short in[N];
    char out[N / 2];
    struct adpcm_state state;
    int i;
    for (i = 0; i < N; i++) in[i] = nondet_short();
    state.valprev = 0;
    state.index = 0;
    adpcm_coder(in, out, N, &state);
    assert(state.valprev - in[N - 1] < 2000 && in[N - 1] - state.valprev < 2000);
    return 0;
}

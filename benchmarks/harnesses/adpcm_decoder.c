/* Model-checking harness for MediaBench's ADPCM decoder (our own). Build with
   -I <benchmarks>/mediabench/adpcm.
   Property: from a silent state, 8 decoded samples stay below 3000: false for code
   sequences that ramp the step size up, which the minimizer shrinks. */
#include "adpcm.c"

#define N 8
char nondet_char(void);

int main(void) {
    char in[N / 2];
    short out[N];
    struct adpcm_state state;
    int i;
    for (i = 0; i < N / 2; i++) in[i] = nondet_char();
    state.valprev = 0;
    state.index = 0;
    adpcm_decoder(in, out, N, &state);
    for (i = 0; i < N; i++) assert(out[i] < 3000);
    return 0;
}

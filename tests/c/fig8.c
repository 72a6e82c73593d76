/* Fig. 8 of "Learning the Language of Error": the sample instrumented program. */
int nondet_int(void);
void F(void) { }
void G(void) { }
void H(void) { }
int main(void) {
    int input = nondet_int();
    if (input >= 10)
        F();
    if (input >= 20) {
        F();
        G();
    }
    H();
    _Learn_assert(input < 20);
    return 0;
}

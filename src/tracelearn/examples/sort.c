/* sort.c: Fig. 1 of Groce & Kroening, "Making the Most of BMC Counterexamples". */
void f (int a, int b, int c)
{
    int temp;
    if (a > b) {
        temp = a;
        a = b;
        b = temp;
    }
    if (b > c) {
        temp = b;
        b = c;
        c = temp;
    }
    if (a < b) {
        temp = a;
        a = b;
        b = temp;
    }
    assert ((a <= b) && (b <= c));
}

int main(void)
{
    int a = nondet_int(), b = nondet_int(), c = nondet_int();
    f(a, b, c);
    return 0;
}

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
/* sort.c: Fig. 1 of Groce & Kroening, "Making the Most of BMC Counterexamples",
   line for line. Check it with the entry function f:
       tracelearn check sort.c --entry f */

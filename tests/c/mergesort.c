/* A merge sort for program explanation (in the style of Fig. 1 of the pv paper). */
int nondet_int(void);
int a[4], tmp[4];
void merge(int lo, int mid, int hi) {
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi) tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < mid) tmp[k++] = a[i++];
    while (j < hi) tmp[k++] = a[j++];
    for (k = lo; k < hi; k++) a[k] = tmp[k];
}
void split(int lo, int hi) {
    if (hi - lo < 2) return;
    int mid = (lo + hi) / 2;
    split(lo, mid);
    split(mid, hi);
    merge(lo, mid, hi);
}
int main(void) {
    int n = nondet_int();
    __VERIFIER_assume(n >= 0 && n <= 3);
    for (int i = 0; i < n; i++) a[i] = nondet_int();
    split(0, n);
    return 0;
}

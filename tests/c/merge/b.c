int nondet_int(void);
void funcA(void) { }
void funcB(void) { }
void funcC(void) { }
int main(void) { int guard = nondet_int(); funcA(); if (guard) funcB(); else funcC(); return 0; }

int nondet_int(void);
void funcA(void) { }
void funcB(void) { }
void funcC(void) { }
void funcZ(void) { int guard = nondet_int(); if (guard) funcB(); else funcC(); }
int main(void) { funcA(); funcZ(); return 0; }

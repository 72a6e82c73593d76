void funcA(void) { }
void funcB(void) { }
void funcZ(void) { funcB(); }
int main(void) { funcA(); funcZ(); return 0; }

void funcA(void) { }
void funcB(void) { }
int main(void) { funcA(); funcB(); return 0; }

/* Fig. 2 / Fig. 6 of "Learning the Language of Error": g may exit, f fails. */
#include <stdlib.h>
#include <assert.h>
void g(int x) { if (x > 100) exit(0); }
void f() { assert(0); }
int main(int argc, char* argv[]) {
    for (int i = 0; i < argc; i++) g(i);
    f();
}

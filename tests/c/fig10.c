/* Fig. 10 of "Learning the Language of Error": Fig. 2 plus an exit before f(). */
#include <stdlib.h>
#include <assert.h>
void g(int x) { if (x > 100) exit(0); }
void f() { assert(0); }
int main(int argc, char* argv[]) {
    for (int i = 0; i < argc; i++) g(i);
    if (argv[0][0] == '1') exit(0);
    f();
}

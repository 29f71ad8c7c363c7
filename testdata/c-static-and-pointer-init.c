//@ expect: safe
// A static local counter, and a global pointer initialized to a global's address.
#include <assert.h>

int x = 3;
int *px = &x;

int next(void) {
    static int n = 10;
    return n++;
}

int main(void) {
    assert(*px == 3);
    *px = 4;
    assert(x == 4);
    assert(next() == 10);
    assert(next() == 11);
    return 0;
}

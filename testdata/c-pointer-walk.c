//@ expect: safe
// Pointer arithmetic over an array, and pointer difference.
#include <assert.h>

int a[5] = {1, 2, 3, 4, 5};

int sum(int *from, int *to) {
    int s = 0;
    for (int *p = from; p < to; p++)
        s += *p;
    return s;
}

int main(void) {
    assert(sum(a, a + 5) == 15);
    assert(sum(&a[1], &a[3]) == 5);
    int *e = a + 5;
    assert(e - a == 5);
    return 0;
}

//@ expect: unsafe
//@ violation: reach-error
// An array index computed by complementing an unsigned int: ~k wraps to a
// small positive index (1), not to a negative number. A static analysis that
// took ~k for negative would think the store misses the array and that the
// two threads never touch the same cell.
#include <pthread.h>
extern void reach_error(void);

int a[4];
unsigned int k = 0xFFFFFFFEu;

void *writer(void *arg) {
    a[~k] = 1;
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    int v = a[1];
    if (v == 1)
        reach_error();
    return 0;
}

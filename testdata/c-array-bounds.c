//@ expect: unsafe
//@ violation: bounds
// An index one past the end, reached only by one interleaving.
#include <pthread.h>

int a[4];
int n = 3;

void *grow(void *arg) { n = n + 1; return 0; }

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, grow, 0);
    a[n] = 1;
    return 0;
}

//@ expect: unsafe
//@ violation: reach-error
// Each thread returns the value of a shared counter it incremented without a
// lock; main expects the results to differ, and a lost update makes them
// equal. The results come back through pthread_join.
#include <pthread.h>
#include <assert.h>

int n;

void *take(void *arg) {
    int v = n;
    n = v + 1;
    return (void *)(long)v;
}

int main(void) {
    pthread_t a, b;
    void *ra, *rb;
    pthread_create(&a, 0, take, 0);
    pthread_create(&b, 0, take, 0);
    pthread_join(b, &rb);
    pthread_join(a, &ra);
    assert(ra != rb);
    assert(pthread_self() != a);
    return 0;
}

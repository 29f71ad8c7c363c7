//@ expect: unsafe
//@ violation: reach-error
// An atomic_int's load and store are each atomic, but x = x + 1 is a load
// and then a store, not one read-modify-write: two threads can both load 0,
// and an increment is lost (x++ would not lose it).
#include <pthread.h>
#include <stdatomic.h>

extern void reach_error(void);

atomic_int x;

void *worker(void *arg) {
    x = x + 1;
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (x != 2)
        reach_error();
    return 0;
}

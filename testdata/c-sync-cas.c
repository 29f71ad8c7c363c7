//@ expect: bounded-safe
// A spin lock from __sync_bool_compare_and_swap.
#include <pthread.h>
#include <assert.h>

int lock, count;

void *inc(void *arg) {
    while (!__sync_bool_compare_and_swap(&lock, 0, 1))
        ;
    int t = count;
    count = t + 1;
    __sync_lock_release(&lock);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, inc, 0);
    pthread_create(&b, 0, inc, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(count == 2);
    return 0;
}

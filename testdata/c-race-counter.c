//@ args: --property no-data-race
//@ expect: unsafe
//@ violation: data-race
// Two threads increment a global counter without a lock: each increment is a
// read and then a write, and one thread's write races with the other's read.
#include <pthread.h>

int count;

void *worker(void *arg) {
    count = count + 1;
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}

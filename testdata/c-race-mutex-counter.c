//@ args: --property no-data-race
//@ expect: safe
// The counter of c-race-counter.c under a mutex: no two accesses are ever
// about to happen at once. main reads it only after joining both threads.
#include <pthread.h>
#include <assert.h>

int count;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
    pthread_mutex_lock(&m);
    count = count + 1;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(count == 2);
    return 0;
}

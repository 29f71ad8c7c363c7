//@ args: --property no-data-race
//@ expect: unsafe
//@ violation: data-race
// A thread-local variable is still memory: main publishes the address of
// its own copy, and a worker writes through it while main reads it.
#include <pthread.h>

__thread int mine;
int *published;

void *worker(void *arg) {
    int *p = published;
    *p = 1;
    return 0;
}

int main(void) {
    published = &mine;
    pthread_t a;
    pthread_create(&a, 0, worker, 0);
    int seen = mine;
    pthread_join(a, 0);
    return seen;
}

//@ expect: bounded-safe
// Workers created in a loop of unknown trip count, and a heap block each: the
// thread pool (3 by default) and the heap pool cut the executions that need
// more. Every execution ends within the depth, so only the model's pools
// make the verdict bounded-safe.
#include <pthread.h>
#include <stdlib.h>
#include <assert.h>
extern _Bool __VERIFIER_nondet_bool(void);

int done;

void *work(void *arg) {
    __sync_fetch_and_add(&done, 1);
    return 0;
}

int main(void) {
    pthread_t t;
    int made = 0;
    while (__VERIFIER_nondet_bool()) {
        int *cell = malloc(sizeof(int));
        *cell = made;
        pthread_create(&t, 0, work, cell);
        made++;
    }
    assert(made <= 3);
    return 0;
}

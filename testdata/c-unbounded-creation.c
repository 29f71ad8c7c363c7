//@ expect: bounded-safe
// Threads created in a loop whose trip count is unknown: the pool cuts it.
#include <pthread.h>
extern int __VERIFIER_nondet_int(void);
extern _Bool __VERIFIER_nondet_bool(void);

int n;

void *worker(void *arg) { __sync_fetch_and_add(&n, 1); return 0; }

int main(void) {
    pthread_t t;
    while (__VERIFIER_nondet_bool())
        pthread_create(&t, 0, worker, 0);
    return 0;
}

//@ args: --property no-data-race
//@ expect: unsafe
//@ violation: data-race
// Atomic objects synchronise only where the program waits on them: main
// reads the plain data before it looks at the atomic flag, so its read races
// with the worker's write. (Read after seeing the flag set, it would not:
// the flag's store and load order the two.)
#include <pthread.h>
#include <stdatomic.h>

atomic_int ready;
int data;

void *worker(void *arg) {
    data = 42;
    ready = 1;
    return 0;
}

int main(void) {
    pthread_t a;
    pthread_create(&a, 0, worker, 0);
    int seen = data;
    if (!ready)
        seen = 0;
    pthread_join(a, 0);
    return seen;
}

//@ args: --property no-data-race
//@ expect: safe
// Accesses to C11 atomic objects never race with each other, wherever they
// are: in an assume's or an if's condition, through a pointer to a heap
// block of atomic_int, in a struct member, as a read-modify-write.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

extern void abort(void);
void assume_abort_if_not(int cond) {
    if (!cond)
        abort();
}

_Atomic _Bool ready;
atomic_int count;
struct box {
    atomic_int v;
} box;
atomic_int *heap;

void *worker(void *arg) {
    heap[0] += 2;
    count++;
    box.v = 1;
    ready = 1;
    return 0;
}

int main(void) {
    heap = (atomic_int *)malloc(sizeof(atomic_int));
    pthread_t a;
    pthread_create(&a, 0, worker, 0);
    if (ready && box.v != 1)
        abort();
    assume_abort_if_not(count >= 0);
    int seen = heap[0];
    pthread_join(a, 0);
    return seen;
}

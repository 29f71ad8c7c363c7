//@ expect: safe
// Blocks come from a wrapper of malloc that returns void *, called through a
// second wrapper, as SV-COMP's tasks allocate (safe_malloc): the block's
// element type is the one the caller casts the result to. Two threads add
// to a counter of a struct block under a mutex: no update is lost.
#include <pthread.h>
#include <stdlib.h>

extern void reach_error(void);

struct counters {
    int hits;
    int misses;
};

void *safe_malloc(size_t size) {
    void *p = malloc(size);
    if (p == 0)
        abort();
    return p;
}

void *xmalloc(size_t size) { return safe_malloc(size); }

struct counters *c;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int *order;

void *worker(void *arg) {
    pthread_mutex_lock(&m);
    int t = c->hits;
    c->hits = t + 1;
    pthread_mutex_unlock(&m);
    order[(long)arg] = 1;
    return 0;
}

int main(void) {
    c = (struct counters *)xmalloc(sizeof(struct counters));
    order = (int *)safe_malloc(2 * sizeof(int));
    c->hits = 0;
    c->misses = 0;
    pthread_t a, b;
    pthread_create(&a, 0, worker, (void *)0);
    pthread_create(&b, 0, worker, (void *)1);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (c->hits != 2 || order[0] + order[1] != 2)
        reach_error();
    return 0;
}

//@ expect: safe
// An assume inside an atomic section, after a write: where it fails, the
// section's writes are undone and the thread never moves again, so nobody
// ever sees x == 1; a lock taken inside an atomic section the same way.
#include <pthread.h>
#include <assert.h>
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern void __VERIFIER_assume(int);

int x, ready, z;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *setter(void *arg) {
    __VERIFIER_atomic_begin();
    x = 1;
    __VERIFIER_assume(ready);
    x = 2;
    __VERIFIER_atomic_end();
    return 0;
}

void *locker(void *arg) {
    __VERIFIER_atomic_begin();
    z = 1;
    pthread_mutex_lock(&m);
    z = 2;
    pthread_mutex_unlock(&m);
    __VERIFIER_atomic_end();
    return 0;
}

int main(void) {
    pthread_t s, l;
    pthread_create(&s, 0, setter, 0);
    pthread_create(&l, 0, locker, 0);
    pthread_mutex_lock(&m);
    ready = 1;
    int seen = x;
    int zs = z;
    pthread_mutex_unlock(&m);
    assert(seen != 1);
    assert(zs != 1);
    return 0;
}

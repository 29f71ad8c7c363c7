//@ args: --property no-data-race
//@ expect: unsafe
//@ violation: data-race
// One thread increments z atomically, the other reads it plainly: an atomic
// access races with a plain one (only two atomic accesses never race).
#include <pthread.h>

int z, seen;

void *inc(void *arg) {
    __atomic_fetch_add(&z, 1, __ATOMIC_SEQ_CST);
    return 0;
}

void *look(void *arg) {
    seen = z;
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, inc, 0);
    pthread_create(&b, 0, look, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}

//@ args: --property no-data-race
//@ expect: safe
// Increments inside atomic sections, __VERIFIER_atomic_begin/end and a
// __VERIFIER_atomic_ function, and C11 atomic builtins: atomic accesses
// never race with each other.
#include <pthread.h>
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

int x, y, z;

void __VERIFIER_atomic_inc_y(void) { y = y + 1; }

void *inc(void *arg) {
    __VERIFIER_atomic_begin();
    x = x + 1;
    __VERIFIER_atomic_end();
    __VERIFIER_atomic_inc_y();
    __atomic_fetch_add(&z, 1, __ATOMIC_SEQ_CST);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, inc, 0);
    pthread_create(&b, 0, inc, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}

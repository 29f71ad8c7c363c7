//@ expect: safe
// A lock made of __VERIFIER_atomic_ functions: the assume is the guard.
#include <pthread.h>
extern void reach_error(void);
extern void __VERIFIER_assume(int);

int lock, inside;

void __VERIFIER_atomic_acquire(void) { __VERIFIER_assume(lock == 0); lock = 1; }
void __VERIFIER_atomic_release(void) { lock = 0; }

void *critical(void *arg) {
    __VERIFIER_atomic_acquire();
    inside++;
    if (inside != 1) reach_error();
    inside--;
    __VERIFIER_atomic_release();
    return 0;
}

int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, critical, 0);
    pthread_create(&t2, 0, critical, 0);
    return 0;
}

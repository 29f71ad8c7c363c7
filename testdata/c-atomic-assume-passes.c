//@ expect: unsafe
//@ violation: reach-error
// The same section: once ready is set, the assume passes and x == 2 can be
// seen; before, the section's write of 1 is undone.
#include <pthread.h>
extern void reach_error(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern void __VERIFIER_assume(int);

int x, ready;

void *setter(void *arg) {
    __VERIFIER_atomic_begin();
    x = 1;
    __VERIFIER_assume(ready);
    x = 2;
    __VERIFIER_atomic_end();
    return 0;
}

int main(void) {
    pthread_t s;
    pthread_create(&s, 0, setter, 0);
    ready = 1;
    if (x == 2)
        reach_error();
    return 0;
}

//@ expect: safe
// __VERIFIER_atomic_begin/end make an increment atomic.
#include <pthread.h>
extern void reach_error(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

int x;

void *inc(void *arg) {
    __VERIFIER_atomic_begin();
    x = x + 1;
    __VERIFIER_atomic_end();
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, inc, 0);
    pthread_create(&b, 0, inc, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (x != 2) reach_error();
    return 0;
}

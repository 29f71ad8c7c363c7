//@ expect: safe
// The magnitude of any int, __VERIFIER_nondet_int() drawn by a worker, fits
// an unsigned int, INT_MIN's 2^31 included (negating in unsigned arithmetic
// is defined; -k on int would overflow there). Proved for all 2^32 values by
// the symbolic engine; the explicit engine refuses to enumerate them.
#include <pthread.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);

unsigned int mag;
int done;

void *worker(void *arg) {
    int k = __VERIFIER_nondet_int();
    mag = k < 0 ? 0u - (unsigned int)k : (unsigned int)k;
    done = 1;
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    assert(done == 1);
    assert(mag <= 2147483648u);
    return 0;
}

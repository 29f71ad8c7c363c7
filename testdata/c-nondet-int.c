//@ expect: unsafe
//@ violation: reach-error
// A key drawn by __VERIFIER_nondet_int(), any of the 2^32 ints, published
// under a mutex. Exactly one key makes its (unsigned, wrapping) triple the
// value main checks for: k = -1390503502, whose triple is 123456790 only
// modulo 2^32. The explicit engine cannot try 2^32 values and refuses the
// program, naming the call; the symbolic engine solves for the key.
#include <pthread.h>
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);

unsigned int code;
int ready;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *producer(void *arg) {
    int k = __VERIFIER_nondet_int();
    pthread_mutex_lock(&m);
    code = (unsigned int)k * 3u;
    ready = 1;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, producer, 0);
    pthread_mutex_lock(&m);
    if (ready && code == 123456790u)
        reach_error();
    pthread_mutex_unlock(&m);
    pthread_join(t, 0);
    return 0;
}

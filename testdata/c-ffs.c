//@ expect: safe
// ffs(i): the position of i's least significant set bit, counting from 1,
// or 0 for 0. Two threads each take a bit of a mask under a mutex, as
// per-thread indices are handed out; each gets a bit the mask had.
#include <pthread.h>
#include <strings.h>

extern void reach_error(void);
extern unsigned char __VERIFIER_nondet_uchar(void);

int mask = 0xA;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
    pthread_mutex_lock(&m);
    int j = ffs(mask) - 1;
    if (j != 1 && j != 3)
        reach_error();
    mask = mask & ~(1 << j);
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    if (ffs(0) != 0 || ffs(1) != 1 || ffs(-2147483647 - 1) != 32 || ffs(12) != 3)
        reach_error();
    int v = __VERIFIER_nondet_uchar();
    if (v != 0 && ((v >> (ffs(v) - 1)) & 1) != 1)
        reach_error();
    if (v != 0 && (v & ((1 << (ffs(v) - 1)) - 1)) != 0)
        reach_error();
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (mask != 0)
        reach_error();
    return 0;
}

//@ args: --property no-overflow
//@ expect: safe
// The same additions on an unsigned counter wrap, as C defines, and the
// signed one stays in range: no overflow. A failing assertion is no
// violation of no-overflow (it aborts the program).
#include <pthread.h>
#include <limits.h>
#include <assert.h>

unsigned int wraps = UINT_MAX - 3;
int small = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
    pthread_mutex_lock(&m);
    wraps = wraps + 2;
    small = small - 2;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(wraps == 1); // false: wraps is 0
    return 0;
}

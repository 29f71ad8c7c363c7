//@ args: --property no-overflow
//@ expect: unsafe
//@ violation: overflow
// Two threads add to a signed counter that starts near INT_MAX; whichever
// adds second overflows it, which C leaves undefined (SV-COMP's no-overflow).
#include <pthread.h>
#include <limits.h>

int count = INT_MAX - 3;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
    pthread_mutex_lock(&m);
    count = count + 2;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}

//@ args: --property no-data-race
//@ expect: unsafe
//@ violation: data-race
// The consumer writes data only when it finds ready unset, which happens
// only if it takes the lock before the producer: in those interleavings its
// write and the producer's write of data are about to happen at once.
#include <pthread.h>

int data, ready;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *producer(void *arg) {
    data = 42;
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_mutex_unlock(&m);
    return 0;
}

void *consumer(void *arg) {
    pthread_mutex_lock(&m);
    int r = ready;
    pthread_mutex_unlock(&m);
    if (!r)
        data = 0;
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, producer, 0);
    pthread_create(&b, 0, consumer, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}

//@ expect: unsafe
//@ violation: reach-error
// Waiting with if, not while: a spurious wake-up, which POSIX allows, reads
// the data before it is ready.
#include <pthread.h>
extern void reach_error(void);

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready, data;

void *consumer(void *arg) {
    pthread_mutex_lock(&m);
    if (!ready)
        pthread_cond_wait(&c, &m);
    if (data != 42) reach_error();
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, consumer, 0);
    pthread_mutex_lock(&m);
    data = 42;
    ready = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    return 0;
}

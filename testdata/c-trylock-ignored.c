//@ expect: unsafe
//@ violation: reach-error
// pthread_mutex_trylock's result is ignored: a thread that did not get the
// mutex updates the counter anyway, and an update is lost.
#include <pthread.h>
extern void reach_error(void);

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int count;

void *inc(void *arg) {
    int got = pthread_mutex_trylock(&m) == 0;
    int c = count;
    count = c + 1;
    if (got)
        pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, inc, 0);
    pthread_create(&b, 0, inc, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (count != 2)
        reach_error();
    return 0;
}

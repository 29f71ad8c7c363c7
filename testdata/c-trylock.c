//@ expect: safe
// pthread_mutex_trylock never blocks: only the thread that got the lock counts.
#include <pthread.h>
#include <assert.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int winners;

void *try(void *arg) {
    if (pthread_mutex_trylock(&m) == 0) {
        winners++;
        assert(winners == 1);
        winners--;
        pthread_mutex_unlock(&m);
    }
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, try, 0);
    pthread_create(&b, 0, try, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}

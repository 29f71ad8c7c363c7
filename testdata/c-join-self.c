//@ expect: unsafe
//@ violation: bad-join
// A worker joins the thread value it finds in a shared variable: its own when
// it runs after main published it, no thread at all (0) when it runs before.
#include <pthread.h>

pthread_t last;

void *worker(void *arg) {
    pthread_join(last, 0);
    return 0;
}

int main(void) {
    pthread_t a;
    pthread_create(&a, 0, worker, 0);
    last = a;
    return 0;
}

//@ expect: unsafe
//@ violation: invalid-free
// A thread frees the block it was given through a pointer it advanced: not
// the block's start.
#include <pthread.h>
#include <stdlib.h>

int *shared;

void *consume(void *arg) {
    int *p = shared;
    if (p) {
        p++;
        free(p);
    }
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, consume, 0);
    int *b = malloc(3 * sizeof(int));
    shared = b;
    pthread_join(t, 0);
    return 0;
}

//@ expect: unsafe
//@ violation: invalid-free
// Both threads free the shared block when they see it set.
#include <pthread.h>
#include <stdlib.h>

int *p;

void *cleanup(void *arg) {
    int *q = p;
    if (q) {
        free(q);
        p = 0;
    }
    return 0;
}

int main(void) {
    p = malloc(sizeof(int));
    pthread_t a, b;
    pthread_create(&a, 0, cleanup, 0);
    pthread_create(&b, 0, cleanup, 0);
    return 0;
}

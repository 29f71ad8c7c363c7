//@ expect: unsafe
//@ violation: invalid-deref
// One thread frees a buffer the other may still read.
#include <pthread.h>
#include <stdlib.h>

int *buf;

void *reader(void *arg) {
    int v = *buf;
    return 0;
}

int main(void) {
    buf = malloc(sizeof(int));
    *buf = 1;
    pthread_t t;
    pthread_create(&t, 0, reader, 0);
    free(buf);
    pthread_join(t, 0);
    return 0;
}

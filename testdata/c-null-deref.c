//@ expect: unsafe
//@ violation: invalid-deref
// The reader may run before the pointer is set.
#include <pthread.h>

int value = 7;
int *ptr;

void *reader(void *arg) {
    int v = *ptr;
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, reader, 0);
    ptr = &value;
    pthread_join(t, 0);
    return 0;
}

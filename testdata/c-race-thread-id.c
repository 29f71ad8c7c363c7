//@ args: --property no-data-race
//@ expect: unsafe
//@ violation: data-race
// pthread_create stores the new thread's id in a global that the first
// thread reads: the store is a write to memory like any other, although
// creating a thread is no memory access.
#include <pthread.h>

pthread_t other;
int seen;

void *reader(void *arg) {
    seen = (int)other;
    return 0;
}

void *idle(void *arg) { return 0; }

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, reader, 0);
    pthread_create(&other, 0, idle, 0);
    return 0;
}

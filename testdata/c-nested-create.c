//@ expect: unsafe
//@ violation: reach-error
// The writer is created by a thread main creates. If it writes x between the
// reader's two reads, they differ. A search that reduces by persistent sets must
// count the creator of a thread not started yet among the threads that may enable it.
#include <pthread.h>
#include <assert.h>

int x = 0;

void *writer(void *arg) { x = 1; return 0; }

void *starter(void *arg) {
    pthread_t w;
    pthread_create(&w, 0, writer, 0);
    return 0;
}

void *reader(void *arg) {
    int a = x;
    int b = x;
    assert(a == b);
    return 0;
}

int main(void) {
    pthread_t r, s;
    pthread_create(&r, 0, reader, 0);
    pthread_create(&s, 0, starter, 0);
    return 0;
}

//@ expect: safe
// A worker allocates a block, fills it and hands it back through its result;
// main reads it after the join and frees it once; free(NULL) does nothing.
#include <pthread.h>
#include <stdlib.h>
#include <assert.h>

void *produce(void *arg) {
    int *buf = malloc(2 * sizeof(int));
    buf[0] = 40;
    buf[1] = (int)(long)arg;
    return buf;
}

int main(void) {
    pthread_t t;
    void *r;
    pthread_create(&t, 0, produce, (void *)2);
    pthread_join(t, &r);
    int *buf = r;
    assert(buf[0] + buf[1] == 42);
    free(buf);
    buf = 0;
    free(buf);
    return 0;
}

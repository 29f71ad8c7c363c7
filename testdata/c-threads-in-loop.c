//@ expect: unsafe
//@ violation: reach-error
// Threads created in a loop, each given its index; one slot is written twice.
#include <pthread.h>

extern void reach_error(void);
#define N 3

int slot[N];

void *writer(void *arg) {
    int i = (int)(long)arg;
    slot[i % 2] = slot[i % 2] + 1;
    return NULL;
}

int main(void) {
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, writer, (void *)(long)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    if (slot[0] != 2)
        reach_error();
    return 0;
}

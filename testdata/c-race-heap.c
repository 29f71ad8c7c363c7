//@ args: --property no-data-race
//@ expect: unsafe
//@ violation: data-race
// Both threads write a heap block they reach through the pointer main passes
// them: the race is on the block's cell, not on any variable.
#include <pthread.h>
#include <stdlib.h>

void *set(void *arg) {
    int *p = arg;
    *p = 1;
    return 0;
}

int main(void) {
    int *cell = malloc(sizeof(int));
    if (!cell)
        return 0;
    *cell = 0;
    pthread_t a, b;
    pthread_create(&a, 0, set, cell);
    pthread_create(&b, 0, set, cell);
    pthread_join(a, 0);
    pthread_join(b, 0);
    free(cell);
    return 0;
}

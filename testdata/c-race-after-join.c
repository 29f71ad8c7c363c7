//@ args: --property no-data-race
//@ expect: safe
// main writes x only after joining the thread that wrote it, and a failing
// assertion is no race: under no-data-race it stops its thread, as C's assert
// aborts the program.
#include <pthread.h>
#include <assert.h>

int x;

void *set(void *arg) {
    x = 1;
    return 0;
}

int main(void) {
    pthread_t a;
    pthread_create(&a, 0, set, 0);
    pthread_join(a, 0);
    x = 2;
    assert(x == 3);
    return 0;
}

//@ expect: unsafe
//@ violation: reach-error
// main ends with pthread_exit while its thread still runs; a thread created
// by a thread; pthread_self compared with the creator's view.
#include <pthread.h>
extern void reach_error(void);

pthread_t inner_id, seen;
int stage;

void *inner(void *arg) {
    seen = pthread_self();
    stage = 2;
    return 0;
}

void *outer(void *arg) {
    pthread_create(&inner_id, 0, inner, 0);
    stage = 1;
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, outer, 0);
    if (stage == 2 && pthread_equal(seen, inner_id))
        reach_error();
    pthread_exit(0);
}

//@ expect: unsafe
//@ violation: reach-error
// A nondeterministic choice selects the buggy path.
#include <pthread.h>
extern void reach_error(void);
extern _Bool __VERIFIER_nondet_bool(void);

int flag, data;

void *producer(void *arg) {
    if (__VERIFIER_nondet_bool()) {
        flag = 1;      // published before the data: the bug
        data = 42;
    } else {
        data = 42;
        flag = 1;
    }
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, producer, 0);
    if (flag && data != 42) reach_error();
    return 0;
}

//@ expect: safe
// A thread that is created only on one path: where it never starts it is
// neither running nor blocked, so the executions that end without it are
// complete, not deadlocked. Its creator waits for it only when it made it.
#include <pthread.h>
#include <assert.h>
extern _Bool __VERIFIER_nondet_bool(void);

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int v;

void *helper(void *arg) {
    pthread_mutex_lock(&m);
    v = v + 1;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    // Zeroed: only the path that creates the thread joins it, which kbmc's
    // check for locals read before they are written does not follow
    // (docs/c.md: such a local would hold any value).
    pthread_t t = 0;
    int made = __VERIFIER_nondet_bool();
    if (made)
        pthread_create(&t, 0, helper, 0);
    pthread_mutex_lock(&m);
    v = v + 10;
    pthread_mutex_unlock(&m);
    if (made)
        pthread_join(t, 0);
    assert(v == 10 + made);
    return 0;
}

//@ expect: safe
// Each thread has its own copy of a thread-local variable, initialized as
// the declaration says: the workers' increments never meet, and main's copy
// keeps its value. Under --property no-data-race it is race-free too: no
// two threads touch one copy.
#include <pthread.h>

extern void reach_error(void);

__thread int mine = 5;
_Thread_local int calls;

void *worker(void *arg) {
    static __thread int depth;
    depth++;
    calls = depth;
    mine = mine + calls;
    if (mine != 6)
        reach_error();
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (mine != 5 || calls != 0)
        reach_error();
    return 0;
}

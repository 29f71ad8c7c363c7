//@ expect: safe
// assume_abort_if_not cuts the executions where the thread has not finished.
#include <pthread.h>
extern void reach_error(void);
void assume_abort_if_not(int cond) { if (!cond) abort(); }
extern void abort(void);

int done, x;

void *work(void *arg) { x = 5; done = 1; return 0; }

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, work, 0);
    assume_abort_if_not(done == 1);
    if (x != 5) reach_error();
    return 0;
}

//@ expect: unsafe
//@ violation: reach-error
// A stack of small values: each pusher draws any unsigned int and assumes it
// below SIZE, as SV-COMP's stack tasks do. kbmc narrows such a draw to the
// assumed interval (ir.Program.NarrowNondets), so the explicit engine
// enumerates five values instead of refusing 2^32. The bug: the two pushers'
// slots are read and written under different locks, so a push can be lost.
#include <pthread.h>

extern void reach_error(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern int __VERIFIER_nondet_int(void);
void assume_abort_if_not(int cond) { if (!cond) { abort(); } }

#define SIZE 5
unsigned int stack[SIZE];
int top;
pthread_mutex_t a, b;

void *pusher(void *arg) {
    pthread_mutex_t *m = arg;
    unsigned int tmp = __VERIFIER_nondet_uint();
    assume_abort_if_not(tmp < SIZE);
    pthread_mutex_lock(m);
    stack[top] = tmp + 1;
    top = top + 1;
    pthread_mutex_unlock(m);
    return 0;
}

int main(void) {
    pthread_t t1, t2;
    int first = __VERIFIER_nondet_int();
    if (!(0 <= first && first < 2)) abort();
    pthread_mutex_init(&a, 0);
    pthread_mutex_init(&b, 0);
    pthread_create(&t1, 0, pusher, first ? &a : &b);
    pthread_create(&t2, 0, pusher, &b);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    if (top != 2) reach_error();
    return 0;
}

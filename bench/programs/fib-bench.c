// fib-bench, in C with POSIX threads: two threads add each other's counter N
// times; main checks that neither passed fib(2N+2), as fib-bench.kb (SV-COMP's
// pthread/fib_bench) written as SV-COMP's tasks are. In the .kb family each
// `i += j` is one step; SV-COMP's C states that with __VERIFIER_atomic_
// functions, and so does this file, so that both forms have the same
// executions (plain C `i += j` is three steps: two reads and a write).
//
// Verdict: unsafe (reach_error: a schedule alternating the two threads reaches
// fib(2N+2)).
#include <pthread.h>

extern void reach_error(void);

#ifndef N
#define N 5
#endif

int i = 1, j = 1;

void __VERIFIER_atomic_add_i(void) { i += j; }
void __VERIFIER_atomic_add_j(void) { j += i; }

void *t1(void *arg) {
    for (int k = 0; k < N; k++)
        __VERIFIER_atomic_add_i();
    return NULL;
}

void *t2(void *arg) {
    for (int k = 0; k < N; k++)
        __VERIFIER_atomic_add_j();
    return NULL;
}

static int fib(int n) {
    int a = 1, b = 1;
    for (int k = 2; k < n; k++) {
        int c = a + b;
        a = b;
        b = c;
    }
    return b;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, t1, NULL);
    pthread_create(&b, NULL, t2, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    int bound = fib(2 * N + 2);
    if (i >= bound || j >= bound)
        reach_error();
    return 0;
}

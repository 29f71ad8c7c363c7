// philosophers-fixed, in C with POSIX threads: as philosophers.c, but each
// philosopher takes the lower-numbered of its two forks first, which breaks
// the cycle of waiting; main joins them and checks that every one ate, as
// philosophers-fixed.kb.
//
// Verdict: safe for N >= 2 (every execution ends).
#include <pthread.h>

extern void reach_error(void);

#ifndef N
#define N 3
#endif

pthread_mutex_t fork_[N];
int meals;

void *philosopher(void *arg) {
    int tid = (int)(long)arg;
    int right = (tid + 1) % N;
    int lo = tid < right ? tid : right;
    int hi = tid < right ? right : tid;
    pthread_mutex_lock(&fork_[lo]);
    pthread_mutex_lock(&fork_[hi]);
    __atomic_fetch_add(&meals, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&fork_[hi]);
    pthread_mutex_unlock(&fork_[lo]);
    return NULL;
}

int main(void) {
    pthread_t p[N];
    for (int i = 0; i < N; i++)
        pthread_mutex_init(&fork_[i], NULL);
    for (int i = 0; i < N; i++)
        pthread_create(&p[i], NULL, philosopher, (void *)(long)i);
    for (int i = 0; i < N; i++)
        pthread_join(p[i], NULL);
    if (meals != N)
        reach_error();
    return 0;
}

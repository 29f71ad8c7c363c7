// philosophers, in C with POSIX threads: N philosophers each take their left
// fork, then their right, eat, and put both down, as philosophers.kb written
// with a pthread mutex per fork. Philosophers holding different forks update
// the shared meal count at once: an atomic increment, one step as in the .kb
// family.
//
// Verdict: unsafe (deadlock: every philosopher holds their left fork).
#include <pthread.h>

#ifndef N
#define N 3
#endif

pthread_mutex_t fork_[N];
int meals;

void *philosopher(void *arg) {
    int tid = (int)(long)arg;
    pthread_mutex_lock(&fork_[tid]);
    pthread_mutex_lock(&fork_[(tid + 1) % N]);
    __atomic_fetch_add(&meals, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&fork_[(tid + 1) % N]);
    pthread_mutex_unlock(&fork_[tid]);
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
    return 0;
}

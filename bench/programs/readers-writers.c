// readers-writers, in C with POSIX threads: one writer, N readers, as
// readers-writers.kb (LazyPOR thesis, Metzler 2014, §6.3.1) written the way a C
// programmer would: main starts the threads in a loop, each reader gets its
// index as the thread argument, and main joins them all.
//
// Reduction. As in the .kb family the writes of x conflict with every read of
// x and nothing else conflicts, so the Mazurkiewicz traces are the 2^N choices
// of which readers read x before the write; main's creations and joins touch
// only the thread handles.
//
// Verdict: safe (no assertion; every execution ends).
#include <pthread.h>

#ifndef N
#define N 2
#endif

int x;
int l[N];

void *writer(void *arg) {
    x = 42;
    return NULL;
}

void *reader(void *arg) {
    int tid = (int)(long)arg;
    int a = l[tid];
    int b = x;
    return NULL;
}

int main(void) {
    pthread_t w, r[N];
    pthread_create(&w, NULL, writer, NULL);
    for (int i = 0; i < N; i++)
        pthread_create(&r[i], NULL, reader, (void *)(long)i);
    pthread_join(w, NULL);
    for (int i = 0; i < N; i++)
        pthread_join(r[i], NULL);
    return 0;
}

// indexer, in C with POSIX threads: N threads insert MAX messages each into a
// shared hash table with compare-and-swap, probing linearly on a collision, as
// indexer.kb (Flanagan and Godefroid, "Dynamic partial-order reduction for
// model checking software", §6) written with GCC's __sync builtin.
//
// Verdict: safe (no assertion; every execution ends).
#include <pthread.h>

#ifndef N
#define N 2
#endif
#define SIZE 128
#define MAX 4

int table[SIZE];

static int hash(int w) { return (w * 7) % SIZE; }
static int getmsg(int m, int id) { return m * 11 + id; }

void *indexer(void *arg) {
    int tid = (int)(long)arg;
    for (int m = 1; m <= MAX; m++) {
        int w = getmsg(m, tid);
        int h = hash(w);
        while (!__sync_bool_compare_and_swap(&table[h], 0, w))
            h = (h + 1) % SIZE;
    }
    return NULL;
}

int main(void) {
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, indexer, (void *)(long)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    return 0;
}

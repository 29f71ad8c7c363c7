//@ expect: safe
// C11 atomic objects: every access to an atomic_int (or a variable declared
// _Atomic) is atomic, and x++ and x += e are one atomic read-modify-write,
// through a pointer or as a struct member too. So no increment is lost, and
// under --property no-data-race the program is race-free.
#include <pthread.h>
#include <stdatomic.h>

extern void reach_error(void);

atomic_int hits;
_Atomic int flags;
atomic_int *counter = &hits;
struct stats {
    atomic_int n;
    int unused;
} st;

void *worker(void *arg) {
    hits++;
    *counter += 2;
    st.n++;
    flags |= 1;
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (hits != 6 || st.n != 2 || flags != 1)
        reach_error();
    return 0;
}

//@ expect: safe
// pthread_exit's value comes back through pthread_join.
#include <pthread.h>
#include <assert.h>

int inputs[2] = {5, 7};

void *twice(void *arg) {
    int *p = arg;
    pthread_exit((void *)(long)(*p * 2));
}

int main(void) {
    pthread_t a, b;
    void *ra, *rb;
    pthread_create(&a, 0, twice, &inputs[0]);
    pthread_create(&b, 0, twice, &inputs[1]);
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    assert((long)ra + (long)rb == 24);
    return 0;
}

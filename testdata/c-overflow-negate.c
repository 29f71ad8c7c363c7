//@ args: --property no-overflow
//@ expect: unsafe
//@ violation: overflow
// Negating INT_MIN, or dividing it by -1, overflows: which one depends on the
// thread that runs first.
#include <pthread.h>
#include <limits.h>

int x = INT_MIN;
int r;

void *negate(void *arg) { r = -x; return 0; }
void *divide(void *arg) { r = x / -1; return 0; }

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, negate, 0);
    pthread_create(&b, 0, divide, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}

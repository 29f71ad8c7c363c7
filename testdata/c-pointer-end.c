//@ expect: safe
// A pointer one past an array's end is valid to form and compare, and the
// walk stops there; pointer difference counts elements. Another thread moves
// the shared cursor meanwhile.
#include <pthread.h>
#include <assert.h>

int a[4] = {1, 2, 3, 4};
int *cursor = a;

void *walker(void *arg) {
    int *end = a + 4;                   /* one past the end */
    if (cursor < end)
        cursor = cursor + 1;
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, walker, 0);
    int *p = cursor;
    int sum = 0;
    while (p != a + 4) {
        sum += *p;
        p++;
    }
    assert(sum == 10 || sum == 9);
    assert(p - a == 4);
    pthread_join(t, 0);
    assert(cursor - a == 1);
    return 0;
}

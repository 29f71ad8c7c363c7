//@ expect: unsafe
//@ violation: invalid-deref
// Two threads each advance the cursor once if it is before the last element;
// checked and advanced in separate steps, both may pass the check and the
// cursor ends one past the end, where reading is invalid.
#include <pthread.h>

int a[3] = {1, 2, 3};
int *cursor = a + 1;

void *advance(void *arg) {
    if (cursor < a + 2) {
        int *c = cursor;
        cursor = c + 1;
    }
    return 0;
}

int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, advance, 0);
    pthread_create(&t2, 0, advance, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    int *p = cursor;
    return *p - 1;                      /* a + 3 when both advanced: past the end */
}

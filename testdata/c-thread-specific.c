//@ expect: safe
// Thread-specific data: main creates a key before the workers start; each
// worker stores a pointer to its own cell under the key and reads back its
// own value, never the other's, nor main's (NULL until set). Race-free under
// --property no-data-race too.
#include <pthread.h>

extern void reach_error(void);

pthread_key_t key;
int cells[2];

void *worker(void *arg) {
    int *mine = &cells[(long)arg];
    if (pthread_getspecific(key) != 0)
        reach_error();
    pthread_setspecific(key, mine);
    *mine = 1;
    if (pthread_getspecific(key) != mine)
        reach_error();
    return 0;
}

int main(void) {
    pthread_key_t other;
    pthread_key_create(&key, NULL);
    pthread_key_create(&other, 0);
    if (key == other)
        reach_error();
    pthread_t a, b;
    pthread_create(&a, 0, worker, (void *)0);
    pthread_create(&b, 0, worker, (void *)1);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (pthread_getspecific(key) != 0 || cells[0] + cells[1] != 2)
        reach_error();
    pthread_key_delete(other);
    return 0;
}

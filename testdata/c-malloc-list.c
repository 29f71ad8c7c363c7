//@ expect: safe
// Two threads push a heap node each onto a list under a mutex.
#include <pthread.h>
#include <stdlib.h>
#include <assert.h>

struct node { int value; struct node *next; };
struct node *head;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *push(void *arg) {
    struct node *n = malloc(sizeof(struct node));
    n->value = (int)(long)arg;
    pthread_mutex_lock(&m);
    n->next = head;
    head = n;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, push, (void *)1);
    pthread_create(&b, 0, push, (void *)2);
    pthread_join(a, 0);
    pthread_join(b, 0);
    int sum = 0;
    for (struct node *p = head; p; p = p->next)
        sum += p->value;
    assert(sum == 3);
    return 0;
}

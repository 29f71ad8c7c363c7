//@ expect: safe
// A struct passed by pointer to each thread; the thread writes its result there.
#include <pthread.h>
#include <assert.h>

struct job { int in; int out; };

void *square(void *arg) {
    struct job *j = arg;
    j->out = j->in * j->in;
    return 0;
}

int main(void) {
    struct job jobs[2] = { {3, 0}, {4, 0} };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, square, &jobs[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    assert(jobs[0].out + jobs[1].out == 25);
    return 0;
}

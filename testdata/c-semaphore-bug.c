//@ expect: unsafe
//@ violation: reach-error
// A POSIX semaphore of count 2 lets both threads into the counter at once:
// sem_wait waits until the count is positive and takes one, sem_post gives
// it back, and an update can be lost. main waits on a second semaphore, posted
// once by each worker, instead of joining.
#include <pthread.h>
#include <semaphore.h>

extern void reach_error(void);

sem_t guard, done;
int counter;

void *worker(void *arg) {
    sem_wait(&guard);
    int t = counter;
    counter = t + 1;
    sem_post(&guard);
    sem_post(&done);
    return 0;
}

int main(void) {
    sem_init(&guard, 0, 2);
    sem_init(&done, 0, 0);
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    sem_wait(&done);
    sem_wait(&done);
    if (counter != 2)
        reach_error();
    if (sem_trywait(&done) != -1)
        reach_error();
    sem_destroy(&guard);
    return 0;
}

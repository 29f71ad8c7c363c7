//@ expect: unsafe
//@ violation: deadlock
// main waits twice on a semaphore only one worker posts: sem_wait blocks
// for ever, and with nothing left to run, that is a deadlock.
#include <pthread.h>
#include <semaphore.h>

sem_t done;

void *worker(void *arg) {
    sem_post(&done);
    return 0;
}

int main(void) {
    sem_init(&done, 0, 0);
    pthread_t a;
    pthread_create(&a, 0, worker, 0);
    sem_wait(&done);
    sem_wait(&done);
    return 0;
}

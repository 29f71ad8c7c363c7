//@ expect: safe
// strcpy from a string literal: every character and the terminating zero
// stored, one step each, into an array that holds them exactly, while
// another thread reads the first character. The reader sees 0 or 'B', never
// anything else; the copy returns its destination.
#include <pthread.h>
#include <string.h>
extern void reach_error(void);

char name[8];
char first;

void *reader(void *arg) {
    first = name[0];
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, reader, 0);
    char *r = strcpy(name, "Bigshot");
    pthread_join(t, 0);
    if (r != name || name[6] != 't' || name[7] != 0 || (first != 0 && first != 'B'))
        reach_error();
    return 0;
}

//@ expect: unsafe
//@ violation: reach-error
// GNU case ranges (case LO ... HI) pick the branch a value falls in, compared
// in the switch value's type: 250 is in 200 ... 255 as an unsigned char, and
// a thread's write decides which range main sees.
#include <pthread.h>
extern void reach_error(void);

unsigned char level;

void *raise_level(void *arg) {
    level = 250;
    return 0;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, 0, raise_level, 0);
    int band;
    switch (level) {
    case 0 ... 99:
        band = 0;
        break;
    case 100 ... 199:
        band = 1;
        break;
    case 200 ... 255:
    high: // a label inside a switch is no case
        band = 2;
        break;
    default:
        band = 3; // unreachable: every value of an unsigned char is in a range
    }
    if (band == 3)
        return 1;
    pthread_join(t, 0);
    if (band == 2)
        reach_error(); // reached when main reads level after the thread wrote it
    return 0;
}

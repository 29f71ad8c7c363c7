//@ expect: unsafe
//@ violation: invalid-deref
// strcpy of an eight-character literal into eight chars: the terminating
// zero lands past the end of the array.
#include <string.h>

char name[8];

int main(void) {
    strcpy(name, "Bigshots");
    return 0;
}

//@ expect: safe
// Unsigned char arithmetic wraps at 256; signed char conversion keeps the sign.
#include <assert.h>

int main(void) {
    unsigned char c = 250;
    c = c + 10;
    assert(c == 4);
    signed char s = (signed char)200;
    assert(s == -56);
    unsigned int u = 0;
    u = u - 1;
    assert(u > 5);
    assert((int)u == -1);
    short h = 32767;
    h = h + 1;
    assert(h == -32768);
    return 0;
}

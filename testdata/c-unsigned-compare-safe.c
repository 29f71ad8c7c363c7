//@ expect: safe
// The same wrap-arounds, asserted: every assertion holds with unsigned
// comparison, division, remainder and shifts, and some would fail with signed
// ones.
#include <assert.h>
extern unsigned char __VERIFIER_nondet_uchar(void);

int main(void) {
    unsigned char c = __VERIFIER_nondet_uchar();
    unsigned int u = c;
    u = u - 256;                        /* always wraps: 2^32 - 256 + c */
    assert(u > 0x7fffffffu);
    assert(u / 2u >= 0x7fffff80u);      /* unsigned division */
    assert(u % 256u == c);              /* unsigned remainder */
    assert((u >> 31) == 1u);            /* logical shift */
    int s = (int)u;
    assert(s < 0);                      /* the same bits, signed */
    assert(s >> 31 == -1);              /* arithmetic shift */
    unsigned char d = c + 200;
    assert(d == (unsigned char)(c - 56));
    assert((d < c) == (c >= 56));
    signed char e = (signed char)(c ^ 0x80);
    assert((e < 0) == (c < 128));
    return 0;
}

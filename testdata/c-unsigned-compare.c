//@ expect: unsafe
//@ violation: reach-error
// Unsigned arithmetic wraps around and compares without sign: the error is
// reachable only through a wrap-around (a signed reading would miss it).
extern void reach_error(void);
extern unsigned char __VERIFIER_nondet_uchar(void);

int main(void) {
    unsigned char c = __VERIFIER_nondet_uchar();
    unsigned char d = c + 200;          /* wraps at 256 when c >= 56 */
    unsigned int u = c;
    u = u - 100;                        /* wraps at 2^32 when c < 100 */
    if (d < 10 && u > 4000000000u && c % 7 == 3)
        reach_error();                  /* c = 59: d = 3, u = 2^32 - 41 */
    return 0;
}

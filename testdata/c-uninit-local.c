//@ expect: unsafe
//@ violation: reach-error
// A local read before it is written holds any value of its type.
extern void reach_error(void);
extern _Bool __VERIFIER_nondet_bool(void);

int main(void) {
    int a;                  // written on every path before it is read: no value drawn
    if (__VERIFIER_nondet_bool())
        a = 1;
    else
        a = 2;
    unsigned char c;        // read before any write: any of 256 values
    if (c == 200 && a == 2)
        reach_error();
    return 0;
}

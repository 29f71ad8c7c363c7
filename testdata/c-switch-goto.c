//@ expect: unsafe
//@ violation: reach-error
// switch with fall-through and a goto to an error label.
extern void reach_error(void);
extern char __VERIFIER_nondet_char(void);

int main(void) {
    char c = __VERIFIER_nondet_char();
    int r = 0;
    switch (c % 4) {
    case 0:
        r = 10;
        break;
    case 1:
        r = 20;
    case 2:
        r += 1;
        break;
    default:
        r = -1;
    }
    if (r == 21) goto ERROR;
    return 0;
ERROR:
    reach_error();
    return 1;
}

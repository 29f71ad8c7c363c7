//@ expect: error
//@ error: recursive call of fact
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int main(void) { return fact(3); }

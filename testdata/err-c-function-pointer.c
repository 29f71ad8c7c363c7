//@ expect: error
//@ error: function pointers are not supported
int one(void) { return 1; }
int main(void) { int (*f)(void) = one; return f(); }

//@ expect: error
//@ error: type float is not supported
float ratio;
int main(void) { ratio = 0.5; return 0; }

package main

import (
	"strings"
	"testing"
)

// TestByteArithmetic: kbmc's memory is made of cells, so char arithmetic
// moves by cells only over char cells. Over a char array it works; the
// container_of idiom, (char *)p - offsetof(…) on a pointer into a struct
// of ints, stops every engine as unsupported (verdict unknown) instead of
// landing on a wrong cell and reporting an invalid dereference that the
// program does not have.
func TestByteArithmetic(t *testing.T) {
	const containerOf = `#include <stddef.h>
#include <stdlib.h>
extern void reach_error(void);
struct node { struct node *next; int datum; };
int main(void) {
    struct node *n = malloc(sizeof(struct node));
    int *d = &n->datum;
    struct node *back = (struct node *)((char *)d - offsetof(struct node, datum));
    if (back != n)
        reach_error();
    return 0;
}
`
	const chars = `extern void reach_error(void);
char buf[4] = "abc";
int main(void) {
    char *p = buf;
    p = p + 2;
    p++;
    if (*p != 0 || p - buf != 3 || *(p - 1) != 'c')
        reach_error();
    return 0;
}
`
	for _, c := range []struct {
		name, src string
		code      int
		want      string
	}{
		{"container_of", containerOf, 5, "byte arithmetic on a pointer into"},
		{"char array", chars, 0, "safe"},
	} {
		path := writeFile(t, c.name+".c", c.src)
		for _, engine := range [][]string{{"--algo", "dfs"}, {"--engine", "symbolic"}} {
			args := append(append([]string{"check"}, engine...), path)
			code, out, errs := kbmc(t, args...)
			if code != c.code || !strings.Contains(out+errs, c.want) {
				t.Errorf("%s %v: exit %d, want %d and %q\n%s%s", c.name, engine, code, c.code, c.want, out, errs)
			}
		}
	}
}

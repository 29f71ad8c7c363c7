package lang_test

import (
	"errors"
	"fmt"

	"kbmc/lang"
)

func ExampleCompile() {
	src := []byte(`shared int x = 0;
thread writer { x = 42; }
thread reader[2] {
    int l = x;
    assert(l == 0 || l == 42, "reader saw a value nobody wrote");
}
`)
	p, err := lang.Compile("rw.kb", src, lang.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range p.Templates {
		fmt.Printf("%s: %d instance(s), %d transition(s)\n", t.Name, t.Instances(), len(t.Transitions))
	}
	// Output:
	// writer: 1 instance(s), 1 transition(s)
	// reader: 2 instance(s), 1 transition(s)
}

func ExampleErrorList() {
	src := []byte("shared int x;\nthread t {\n    x = y + 1;\n    x = true;\n}\n")
	_, err := lang.Compile("file.kb", src, lang.Config{})
	var list lang.ErrorList
	if errors.As(err, &list) {
		fmt.Println(len(list), "errors")
		fmt.Println(err)
	}
	// Output:
	// 2 errors
	// file.kb:3:9: undefined: y
	//     x = y + 1;
	//         ^
	// file.kb:4:9: cannot use true (bool) as int value in assignment
	//     x = true;
	//         ^
}

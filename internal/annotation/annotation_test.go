package annotation

import (
	"reflect"
	"strings"
	"testing"

	"kbmc/lang"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Annotations
	}{
		{"safe", "//@ expect: safe\nshared int x;\n", Annotations{Expect: "safe"}},
		{"bounded-safe", "//@ expect: bounded-safe\n//@ args: --depth 12\n",
			Annotations{Expect: "bounded-safe", Args: []string{"--depth", "12"}}},
		{"unsafe", "//@ expect: unsafe\n//@ violation: assertion\n//@ args: --depth 40   -D N=3\n",
			Annotations{Expect: "unsafe", Violation: "assertion", Args: []string{"--depth", "40", "-D", "N=3"}}},
		{"error", "//@ expect: error\n//@ error: undefined: y\n",
			Annotations{Expect: "error", Error: "undefined: y"}},
		{"engines", "//@ expect: safe\n//@ engines: explicit/dfs, symbolic/z3,,explicit/lazypor/gini\n",
			Annotations{Expect: "safe", Engines: []string{"explicit/dfs", "symbolic/z3", "explicit/lazypor/gini"}}},
		{"engines separated by spaces", "//@ expect: safe\n//@ engines: explicit/dfs symbolic/gini\n",
			Annotations{Expect: "safe", Engines: []string{"explicit/dfs", "symbolic/gini"}}},
		{"empty engines", "//@ expect: safe\n//@ engines: , \n", Annotations{Expect: "safe"}},
		{"white space around key and value", "  //@expect  :   unsafe  \n\t//@ violation:deadlock\n",
			Annotations{Expect: "unsafe", Violation: "deadlock"}},
		{"later line wins", "//@ expect: unsafe\n//@ expect: safe\n", Annotations{Expect: "safe"}},
		{"annotations anywhere", "shared int x;\nthread t { x = 1; }\n//@ expect: safe\n", Annotations{Expect: "safe"}},
		{"other comments ignored", "// expect: nonsense\n/* //@ */\n//@ expect: safe\n", Annotations{Expect: "safe"}},
		{"CRLF", "//@ expect: unsafe\r\n//@ violation: bounds\r\n", Annotations{Expect: "unsafe", Violation: "bounds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"no colon", "//@ expect safe\n", `annotation "//@ expect safe": want //@ key: value`},
		{"unknown key", "//@ expect: safe\n//@ expected: safe\n", `unknown annotation "expected"`},
		{"no expect", "shared int x;\n", "no //@ expect: annotation"},
		{"empty expect", "//@ expect:\n", "no //@ expect: annotation"},
		{"unknown expect", "//@ expect: maybe\n", "//@ expect: maybe: want safe, unsafe, bounded-safe or error"},
		{"error without text", "//@ expect: error\n", "//@ expect: error needs //@ error: TEXT"},
		{"unsafe without violation", "//@ expect: unsafe\n", `//@ expect: unsafe needs a //@ violation: KIND, got ""`},
		{"unsafe with unknown violation", "//@ expect: unsafe\n//@ violation: stack-overflow\n",
			`//@ expect: unsafe needs a //@ violation: KIND, got "stack-overflow"`},
		{"safe with violation", "//@ expect: safe\n//@ violation: assertion\n", "//@ violation given for expect: safe"},
		{"bounded-safe with violation", "//@ expect: bounded-safe\n//@ violation: deadlock\n",
			"//@ violation given for expect: bounded-safe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src))
			if err == nil {
				t.Fatalf("no error; want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error %q; want %q", err, tt.want)
			}
		})
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args string
		want Flags
	}{
		{"", Flags{}},
		{"--depth 40", Flags{Depth: 40}},
		{"--stateful --local-deadlock", Flags{Stateful: true, LocalDeadlock: true}},
		{"--depth 0", Flags{}},
		{"--width 8", Flags{Config: lang.Config{Width: 8}}},
		{"--width 64", Flags{Config: lang.Config{Width: 64}}},
		{"-D N=3", Flags{Config: lang.Config{Defines: map[string]int64{"N": 3}}}},
		{"-D N=-5", Flags{Config: lang.Config{Defines: map[string]int64{"N": -5}}}},
		{"-D MAX=0x10", Flags{Config: lang.Config{Defines: map[string]int64{"MAX": 16}}}},
		{"-D N=1 -D M=2 -D N=4", Flags{Config: lang.Config{Defines: map[string]int64{"N": 4, "M": 2}}}},
		{"--no-fold", Flags{Config: lang.Config{NoFold: true}}},
		{"--no-deadlock", Flags{NoDeadlock: true}},
		{"--depth 16 --no-deadlock --width 16 -D N=2 --no-fold", Flags{Depth: 16, NoDeadlock: true,
			Config: lang.Config{Width: 16, Defines: map[string]int64{"N": 2}, NoFold: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got, err := ParseArgs(strings.Fields(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	tests := []struct {
		args, want string
	}{
		{"--depth", "--depth needs a value"},
		{"--width", "--width needs a value"},
		{"-D", "-D needs a value"},
		{"--no-fold -D", "-D needs a value"},
		{"--depth ten", `--depth ten: "ten" is not an integer`},
		{"--depth -1", "--depth -1: must not be negative"},
		{"--width 1.5", `--width 1.5: "1.5" is not an integer`},
		{"--width 4", "--width 4: must be between 8 and 64"},
		{"--width 65", "--width 65: must be between 8 and 64"},
		{"-D N", "-D N: want NAME=VALUE"},
		{"-DN=3", `unknown argument "-DN=3"`},
		{"-D =3", "-D =3: want NAME=VALUE"},
		{"-D N=three", `-D N=three: "three" is not an integer`},
		{"-D N=", `-D N=: "" is not an integer`},
		{"--depth=16", `unknown argument "--depth=16"`},
		{"--engine symbolic", `unknown argument "--engine"`},
		{"--no-fold --bpor", `unknown argument "--bpor"`},
		{"-d N=2", `unknown argument "-d"`},
		{"16", `unknown argument "16"`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			_, err := ParseArgs(strings.Fields(tt.args))
			if err == nil {
				t.Fatalf("no error; want %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %q; want it to start with %q", err, tt.want)
			}
		})
	}
}

package svcomp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadTask(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "unreach-call.prp", "CHECK( init(main()), LTL(G ! call(reach_error())) )\n")
	write(t, dir, "races.prp", "CHECK( init(main()), LTL(G ! data-race) )\n")
	tests := []struct {
		name, yml string
		inputs    []string
		model     string
		props     []string // name=expected
		err       string
	}{
		{"format 1.0, one input", "format_version: '1.0'\ninput_files: 'a.i'\nproperties:\n  - property_file: unreach-call.prp\n    expected_verdict: false\n",
			[]string{"a.i"}, "ILP32", []string{"unreach-call=false"}, ""},
		{"format 2.0, list, options", "format_version: '2.0'\ninput_files: ['a.c', 'b.c']\nproperties:\n  - property_file: unreach-call.prp\n    expected_verdict: true\n  - property_file: races.prp\n  - property_file: ../props/valid-memsafety.prp\n    expected_verdict: false\n    subproperty: valid-free\noptions:\n  language: C\n  data_model: LP64\n",
			[]string{"a.c", "b.c"}, "LP64", []string{"unreach-call=true", "no-data-race=?", "valid-memsafety=false"}, ""},
		{"no format", "input_files: a.i\nproperties:\n  - property_file: unreach-call.prp\n", nil, "", nil, "no format_version"},
		{"future format", "format_version: '3.0'\ninput_files: a.i\n", nil, "", nil, "format 3.0 is not supported"},
		{"no inputs", "format_version: '2.0'\nproperties:\n  - property_file: unreach-call.prp\n", nil, "", nil, "no input_files"},
		{"no properties", "format_version: '2.0'\ninput_files: a.i\n", nil, "", nil, "no properties"},
		{"not yaml", "format_version: [\n", nil, "", nil, "not a task file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task, err := ReadTask(write(t, dir, "t.yml", tt.yml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, in := range tt.inputs {
				if want := filepath.Join(dir, in); task.Inputs[i] != want {
					t.Errorf("input %d = %s, want %s", i, task.Inputs[i], want)
				}
			}
			if task.DataModel != tt.model || task.Language != "C" {
				t.Errorf("data model %s language %s", task.DataModel, task.Language)
			}
			var got []string
			for _, p := range task.Properties {
				e := "?"
				if p.Expected != nil {
					e = map[bool]string{true: "true", false: "false"}[*p.Expected]
				}
				got = append(got, p.Name+"="+e)
			}
			if strings.Join(got, " ") != strings.Join(tt.props, " ") {
				t.Errorf("properties %v, want %v", got, tt.props)
			}
		})
	}
}

package svcomp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A Task is an SV-COMP verification task: the program's files and the
// properties to check, each with its expected verdict when the task gives one.
type Task struct {
	Path       string   // the task file
	Inputs     []string // the program's files, relative to the working directory
	Properties []Property
	Language   string // "C"
	DataModel  string // "ILP32" or "LP64"
}

// A Property is one property of a task.
type Property struct {
	Name     string // unreach-call, no-data-race, valid-memsafety, no-overflow, termination, …
	File     string // the property file, as the task names it
	Expected *bool  // the expected verdict, nil when the task gives none
	Sub      string // the expected violated sub-property (valid-memsafety's valid-free, …), if any
}

// taskFile is the YAML of a task file, format 1.0 or 2.0.
type taskFile struct {
	FormatVersion string    `yaml:"format_version"`
	InputFiles    yaml.Node `yaml:"input_files"`
	Properties    []struct {
		PropertyFile    string `yaml:"property_file"`
		ExpectedVerdict *bool  `yaml:"expected_verdict"`
		Subproperty     string `yaml:"subproperty"`
	} `yaml:"properties"`
	Options struct {
		Language  string `yaml:"language"`
		DataModel string `yaml:"data_model"`
	} `yaml:"options"`
}

// ReadTask reads a task file (format 1.0 or 2.0). Input files and property
// files are resolved relative to the task file's directory.
func ReadTask(path string) (*Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tf taskFile
	if err := yaml.Unmarshal(data, &tf); err != nil {
		return nil, fmt.Errorf("%s: not a task file: %v", path, err)
	}
	switch tf.FormatVersion {
	case "1.0", "2.0":
	case "":
		return nil, fmt.Errorf("%s: not a task file (no format_version)", path)
	default:
		return nil, fmt.Errorf("%s: task format %s is not supported (1.0 and 2.0 are)", path, tf.FormatVersion)
	}
	dir := filepath.Dir(path)
	t := &Task{Path: path, Language: tf.Options.Language, DataModel: tf.Options.DataModel}
	switch tf.InputFiles.Kind {
	case yaml.ScalarNode:
		t.Inputs = []string{tf.InputFiles.Value}
	case yaml.SequenceNode:
		for _, n := range tf.InputFiles.Content {
			t.Inputs = append(t.Inputs, n.Value)
		}
	}
	if len(t.Inputs) == 0 {
		return nil, fmt.Errorf("%s: no input_files", path)
	}
	for i, in := range t.Inputs {
		t.Inputs[i] = filepath.Join(dir, in)
	}
	if t.DataModel == "" {
		t.DataModel = "ILP32" // format 1.0 has no options: SV-COMP's C tasks are 32-bit
	}
	if t.Language == "" {
		t.Language = "C"
	}
	for _, p := range tf.Properties {
		t.Properties = append(t.Properties, Property{Name: propertyName(filepath.Join(dir, p.PropertyFile)),
			File: p.PropertyFile, Expected: p.ExpectedVerdict, Sub: p.Subproperty})
	}
	if len(t.Properties) == 0 {
		return nil, fmt.Errorf("%s: no properties", path)
	}
	return t, nil
}

// propertyName names the property a property file states: from its contents
// when the file is at hand (CHECK( init(main()), LTL(G ! call(reach_error())) )
// is unreach-call), else from its name (unreach-call.prp).
func propertyName(file string) string {
	if data, err := os.ReadFile(file); err == nil {
		s := strings.Join(strings.Fields(string(data)), "")
		switch {
		case strings.Contains(s, "call(reach_error())") || strings.Contains(s, "call(__VERIFIER_error())"):
			return "unreach-call"
		case strings.Contains(s, "data-race"):
			return "no-data-race"
		case strings.Contains(s, "valid-free") || strings.Contains(s, "valid-deref") || strings.Contains(s, "valid-memtrack"):
			if strings.Contains(s, "valid-memcleanup") {
				return "valid-memcleanup"
			}
			return "valid-memsafety"
		case strings.Contains(s, "overflow"):
			return "no-overflow"
		case strings.Contains(s, "F end"):
			return "termination"
		}
	}
	return strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
}

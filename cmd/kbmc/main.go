package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
)

// Exit codes (DESIGN.md §7, CBMC's).
const (
	exitOK       = 0
	exitUsage    = 1
	exitInput    = 2
	exitUnknown  = 5
	exitInternal = 6
	exitUnsafe   = 10
)

// exitError carries an exit code through urfave/cli's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run executes the CLI and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.Run(hoistFlags(app, args))
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, "kbmc: "+strings.TrimRight(ee.err.Error(), "\n"))
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "kbmc: "+err.Error())
	return exitUsage
}

func newApp(stdout, stderr io.Writer) *cli.App {
	onUsage := func(c *cli.Context, err error, isSub bool) error {
		return &exitError{exitUsage, fmt.Errorf("%v (see 'kbmc %s --help')", err, c.Command.Name)}
	}
	app := &cli.App{
		Name:                      "kbmc",
		Usage:                     "bounded model checker for concurrent shared-memory programs",
		Writer:                    stdout,
		ErrWriter:                 stderr,
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError:              onUsage,
		Commands: []*cli.Command{
			checkCommand(),
			xvalCommand(),
			runCommand(),
			irCommand(),
			regressCommand(),
			mergeCommand(),
			benchCommand(),
			detectCommand(),
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return usageErr("unknown command %q (commands: check, xval, run, ir, regress, bench)", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = onUsage
	}
	return app
}

// hoistFlags moves flags that follow a command's positional arguments in front of
// them, so that `kbmc check prog.kb --depth 10` works as people expect (the standard
// flag package stops at the first positional argument).
func hoistFlags(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.Name == args[1] {
			cmd = c
		}
	}
	if cmd == nil {
		return args
	}
	boolean := map[string]bool{"help": true, "h": true}
	for _, f := range cmd.Flags {
		if _, ok := f.(*cli.BoolFlag); ok {
			for _, n := range f.Names() {
				boolean[n] = true
			}
		}
	}
	var flags, pos []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") || boolean[name] {
			continue
		}
		if i+1 < len(rest) {
			flags = append(flags, rest[i+1])
			i++
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

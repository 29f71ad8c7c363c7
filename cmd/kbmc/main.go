package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"kbmc/verify"
)

// Exit codes, CBMC's (docs/output.md, "Verdicts and exit codes"): the one
// place that defines them.
const (
	exitOK       = 0
	exitUsage    = 1
	exitInput    = 2
	exitUnknown  = 5
	exitInternal = 6
	exitUnsafe   = 10
)

// verdictExit is the exit code of a verdict: safe and bounded-safe exit 0.
func verdictExit(v verify.Verdict) int {
	switch v {
	case verify.Unsafe:
		return exitUnsafe
	case verify.Unknown:
		return exitUnknown
	}
	return exitOK
}

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

// version is kbmc's release; the build's VCS revision follows it when known.
const version = "0.2.0"

func versionString() string {
	v := version
	if info, ok := debug.ReadBuildInfo(); ok {
		var rev, dirty string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			v += " (" + rev + dirty + ")"
		}
	}
	return v
}

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := make(chan os.Signal, 1)
	// SIGTERM (what timeout(1) and service managers send) is treated as
	// Ctrl-C: a run killed from outside still prints its verdict and
	// statistics.
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		// The first Ctrl-C or SIGTERM ends the run as a time limit does
		// (verdict unknown, statistics, exit 5); a second one kills kbmc at
		// once.
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		cancel(verify.ErrInterrupted)
	}()
	os.Exit(runContext(ctx, os.Args, os.Stdout, os.Stderr))
}

// run executes the CLI and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext executes the CLI under ctx (cancelled by Ctrl-C) and returns the
// process exit code.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, hoistFlags(app, args))
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
	var app *cli.App
	onUsage := func(c *cli.Context, err error, isSub bool) error {
		help := "kbmc --help"
		flags := app.Flags
		if c.Command != nil && c.Command.Name != "" && c.Command.Name != app.Name {
			help = "kbmc " + c.Command.Name + " --help"
			flags = c.Command.Flags
		}
		return &exitError{exitUsage, fmt.Errorf("%v%s (see '%s')", err, didYouMeanFlag(err, flags), help)}
	}
	app = &cli.App{
		Name:                      "kbmc",
		Usage:                     "bounded model checker for concurrent and distributed programs",
		Version:                   versionString(),
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
			svcompCommand(),
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				hint := ""
				var names []string
				for _, cmd := range c.App.Commands {
					names = append(names, cmd.Name)
				}
				if s := closest(c.Args().First(), names); s != "" {
					hint = fmt.Sprintf("; did you mean %q?", s)
				}
				return usageErr("unknown command %q%s (commands: check, xval, run, ir, regress, bench)", c.Args().First(), hint)
			}
			return cli.ShowAppHelp(c)
		},
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = onUsage
	}
	return app
}

var undefinedFlag = regexp.MustCompile(`flag provided but not defined: -+(\S+)`)

// didYouMeanFlag suggests the closest defined flag for an undefined one, or "".
func didYouMeanFlag(err error, flags []cli.Flag) string {
	m := undefinedFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	if s := closest(m[1], names); s != "" {
		if len(s) == 1 {
			return "; did you mean -" + s + "?"
		}
		return "; did you mean --" + s + "?"
	}
	return ""
}

// closest is the name nearest to s in edit distance, if near enough to be a
// typo (at most a third of its letters wrong), or "".
func closest(s string, names []string) string {
	best, bestDist := "", len(s)/3+1
	for _, n := range names {
		if d := editDistance(s, n); d < bestDist || d == bestDist && best == "" && d <= len(s)/3 {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance, with a transposition counting one.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
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

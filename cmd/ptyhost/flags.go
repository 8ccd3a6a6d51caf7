package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ptyhost/ptyhost"
)

// maxSide bounds each side of a --size before the host checks its own,
// tighter limits; it keeps absurd numbers out of arithmetic.
const maxSide = 1 << 16

// newFlagSet returns a flag set that reports errors instead of printing
// them: every message goes through exitCode as one line.
func newFlagSet(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args with fs and turns the flag package's errors into
// usage errors naming the command.
func parseFlags(cmd string, fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &usageError{cmd: cmd, msg: flagMessage(err.Error())}
}

// flagMessage rewrites the flag package's messages in the style of the
// help texts, with double-dash flag names.
func flagMessage(msg string) string {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "--" + name + " needs a value"
	}
	return strings.Replace(msg, " for flag -", " for --", 1)
}

// parseCommand parses "[flags] -- CMD [ARGS...]" and returns CMD and its
// arguments. The "--" is required so that the command's own flags are
// never mistaken for ptyhost's.
func parseCommand(cmd string, fs *flag.FlagSet, args []string) ([]string, error) {
	if err := parseFlags(cmd, fs, args); err != nil {
		return nil, err
	}
	rest := fs.Args()
	i := dashesAt(fs, args)
	dashed := i >= 0 && i == len(args)-len(rest)-1
	switch {
	case !dashed && len(rest) > 0:
		return nil, usagef(cmd, "missing -- before the command: ptyhost %s [flags] -- %s", cmd, strings.Join(rest, " "))
	case len(rest) == 0:
		return nil, usagef(cmd, "missing command: ptyhost %s [flags] -- CMD [ARGS...]", cmd)
	case rest[0] == "":
		return nil, usagef(cmd, "empty command name")
	}
	return rest, nil
}

// dashesAt returns the index of the "--" that ends the flags in args, or
// -1, walking args as the flag package does: so that "--input -- ls"
// (where "--" is the value of --input) is not taken for "-- ls".
func dashesAt(fs *flag.FlagSet, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return i
		case len(a) < 2 || a[0] != '-':
			return -1
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			return -1
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) {
			i++ // the next argument is the value
		}
	}
	return -1
}

// sizeFlag is a --size COLSxROWS value.
type sizeFlag struct {
	cols, rows int
	set        bool
}

func (s *sizeFlag) String() string {
	if !s.set {
		return ""
	}
	return fmt.Sprintf("%dx%d", s.cols, s.rows)
}

func (s *sizeFlag) Set(v string) error {
	c, r, err := parseSize(v)
	if err != nil {
		return err
	}
	s.cols, s.rows, s.set = c, r, true
	return nil
}

// parseSize parses "COLSxROWS" (an upper-case X works too), e.g. "120x40".
func parseSize(v string) (cols, rows int, err error) {
	cs, rs, ok := strings.Cut(strings.ToLower(v), "x")
	if !ok {
		return 0, 0, fmt.Errorf("want COLSxROWS, like 80x24")
	}
	cols, err1 := strconv.Atoi(cs)
	rows, err2 := strconv.Atoi(rs)
	if err1 != nil || err2 != nil || strings.HasPrefix(cs, "+") || strings.HasPrefix(rs, "+") {
		return 0, 0, fmt.Errorf("want COLSxROWS with whole numbers, like 80x24")
	}
	if cols < 1 || rows < 1 || cols > maxSide || rows > maxSide {
		return 0, 0, fmt.Errorf("%dx%d is out of range", cols, rows)
	}
	return cols, rows, nil
}

// formatFlag is a --format value: text, ansi or json.
type formatFlag string

const (
	formatText formatFlag = "text"
	formatANSI formatFlag = "ansi"
	formatJSON formatFlag = "json"
)

func (f *formatFlag) String() string { return string(*f) }

func (f *formatFlag) Set(v string) error {
	switch formatFlag(v) {
	case formatText, formatANSI, formatJSON:
		*f = formatFlag(v)
		return nil
	}
	return fmt.Errorf("want text, ansi or json")
}

// backendFlag is --backend: the headless terminal the host uses.
type backendFlag struct{ b ptyhost.Backend }

func (f *backendFlag) String() string { return f.b.String() }

func (f *backendFlag) Set(v string) error {
	b, err := ptyhost.ParseBackend(v)
	if err != nil {
		return errors.New("want default, xvt or engine")
	}
	f.b = b
	return nil
}

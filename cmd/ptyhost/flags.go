package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost"
)

// newFlagSet returns the set of flags of cmd. Only its registry and
// Set are used: parseArgs does the parsing, so that every mistake comes
// back as a typed *flagError, never as the flag package's printed text.
func newFlagSet(cmd string) *flag.FlagSet {
	return flag.NewFlagSet(cmd, flag.ContinueOnError)
}

// Reasons of a *flagError that carry no data.
var (
	errUnknownFlag = errors.New("unknown flag")
	errNeedsValue  = errors.New("needs a value")
)

// flagError is a mistake in one flag on the command line: an unknown
// name (errUnknownFlag), a missing value (errNeedsValue), or a value its
// type rejected (the type's own error, saying what it wants).
type flagError struct {
	name  string // without dashes
	value string
	err   error
}

func (e *flagError) Error() string {
	switch e.err {
	case errUnknownFlag:
		return "unknown flag --" + e.name
	case errNeedsValue:
		return "--" + e.name + " needs a value"
	}
	return fmt.Sprintf("--%s %s: %v", e.name, strconv.Quote(e.value), e.err)
}

func (e *flagError) Unwrap() error { return e.err }

// parseArgs parses args against the flags registered in fs. A flag is
// -name or --name, with its value after "=" or in the next argument (a
// boolean flag takes no next argument). "--" ends the flags and is
// reported as dashed; "-h", "-help" and "--help" return flag.ErrHelp.
// Without interspersed, the first argument that is not a flag ("-" is
// not) ends the flags too; with it, such arguments are collected and
// flags may follow them.
func parseArgs(fs *flag.FlagSet, args []string, interspersed bool) (rest []string, dashed bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(rest, args[i+1:]...), true, nil
		case len(a) < 2 || a[0] != '-':
			if !interspersed {
				return append(rest, args[i:]...), false, nil
			}
			rest = append(rest, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		switch {
		case f == nil && (name == "h" || name == "help"):
			return nil, false, flag.ErrHelp
		case f == nil:
			return nil, false, &flagError{name: name, err: errUnknownFlag}
		case !hasValue && isBoolFlag(f):
			value = "true"
		case !hasValue && i+1 == len(args):
			return nil, false, &flagError{name: name, err: errNeedsValue}
		case !hasValue:
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, false, &flagError{name: name, value: value, err: err}
		}
	}
	return rest, false, nil
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parseCommand parses "[flags] -- CMD [ARGS...]" and returns CMD and its
// arguments. The "--" is required so that the command's own flags are
// never mistaken for ptyhost's.
func parseCommand(cmd string, fs *flag.FlagSet, args []string) ([]string, error) {
	rest, dashed, err := parseArgs(fs, args, false)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, err
	case err != nil:
		return nil, &usageError{cmd: cmd, err: err}
	case !dashed && len(rest) > 0:
		return nil, usagef(cmd, "missing -- before the command: ptyhost %s [flags] -- %s", cmd, strings.Join(rest, " "))
	case len(rest) == 0:
		return nil, usagef(cmd, "missing command: ptyhost %s [flags] -- CMD [ARGS...]", cmd)
	case rest[0] == "":
		return nil, usagef(cmd, "empty command name")
	}
	return rest, nil
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

// sizeLimits says which sizes the host runs, for messages and --help.
var sizeLimits = fmt.Sprintf("1..%d columns and 1..%d rows", ptyhost.MaxCols, ptyhost.MaxRows)

// parseSize parses "COLSxROWS" (an upper-case X works too), e.g. "120x40",
// within the host's limits.
func parseSize(v string) (cols, rows int, err error) {
	cs, rs, ok := strings.Cut(strings.ToLower(v), "x")
	if !ok {
		return 0, 0, errors.New("want COLSxROWS, like 80x24")
	}
	cols, err1 := strconv.Atoi(cs)
	rows, err2 := strconv.Atoi(rs)
	if err1 != nil || err2 != nil || strings.HasPrefix(cs, "+") || strings.HasPrefix(rs, "+") {
		return 0, 0, errors.New("want COLSxROWS with whole numbers, like 80x24")
	}
	if cols < 1 || rows < 1 || cols > ptyhost.MaxCols || rows > ptyhost.MaxRows {
		return 0, 0, fmt.Errorf("out of range: want %s", sizeLimits)
	}
	return cols, rows, nil
}

// durationFlag is a Go duration, with a message that says so.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return ""
	}
	return f.d.String()
}

func (f durationFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return errors.New("want a duration like 500ms, 2s or 1m30s")
	}
	*f.d = d
	return nil
}

// intFlag is a whole number, with a message that says so.
type intFlag struct{ n *int }

func (f intFlag) String() string {
	if f.n == nil {
		return ""
	}
	return strconv.Itoa(*f.n)
}

func (f intFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return errors.New("want a whole number")
	}
	*f.n = n
	return nil
}

// floatFlag is a decimal number, with a message that says so.
type floatFlag struct{ x *float64 }

func (f floatFlag) String() string {
	if f.x == nil {
		return ""
	}
	return strconv.FormatFloat(*f.x, 'g', -1, 64)
}

func (f floatFlag) Set(v string) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return errors.New("want a number, like 2 or 0.5")
	}
	*f.x = x
	return nil
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
	return errors.New("want text, ansi or json")
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

// recordFlags are the flags that say how --record writes its cast, for
// every command that records.
type recordFlags struct {
	path    string
	version recordVersionFlag
	input   bool
}

func (r *recordFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.path, "record", "", "")
	fs.Var(&r.version, "record-format", "")
	fs.BoolVar(&r.input, "record-input", false, "")
}

// spec fills the recording fields of a Spec.
func (r *recordFlags) spec(s *ptyhost.Spec) {
	s.RecordPath, s.RecordVersion, s.RecordInput = r.path, r.version.v, r.input
}

// recordVersionFlag is --record-format: v3 (0, the library's default) or
// v2.
type recordVersionFlag struct{ v int }

func (f *recordVersionFlag) String() string {
	if f.v == 2 {
		return "v2"
	}
	return "v3"
}

func (f *recordVersionFlag) Set(v string) error {
	switch v {
	case "v2", "2":
		f.v = 2
	case "v3", "3":
		f.v = 3
	default:
		return errors.New("want v3 (asciicast v3, asciinema 3) or v2 (asciinema 2.x)")
	}
	return nil
}

// parseFlags parses the args of a command that takes flags only (keygen,
// token): any other argument is a usage error.
func parseFlags(cmd string, fs *flag.FlagSet, args []string) error {
	rest, _, err := parseArgs(fs, args, true)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return err
	case err != nil:
		return &usageError{cmd: cmd, err: err}
	case len(rest) > 0:
		return usagef(cmd, "unexpected argument %q", rest[0])
	}
	return nil
}

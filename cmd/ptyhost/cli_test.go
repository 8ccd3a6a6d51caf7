package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost"
)

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	badCast := filepath.Join(dir, "bad.cast")
	os.WriteFile(badCast, []byte("{\"version\": 2, \"width\": 80, \"height\": 24}\n[1, \"o\"\n"), 0o644)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("echo hi\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		say  string
	}{
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown flag", []string{"exec", "--frob", "--", "true"}, 2, "unknown flag --frob"},
		{"missing dashes", []string{"exec", "true"}, 2, "missing --"},
		{"missing command", []string{"exec", "--"}, 2, "missing command"},
		{"malformed size", []string{"exec", "--size", "80", "--", "true"}, 2, "COLSxROWS"},
		{"zero size", []string{"exec", "--size", "0x24", "--", "true"}, 2, "out of range"},
		{"size over the host's limit", []string{"exec", "--size", "5000x24", "--", "true"}, 2, "--size"},
		{"bad escape", []string{"exec", "--input", `\q`, "--", "true"}, 2, "--input"},
		{"bad regex", []string{"exec", "--wait-for", "(", "--", "true"}, 2, "--wait-for"},
		{"negative timeout", []string{"exec", "--timeout", "-1s", "--", "true"}, 2, "--timeout"},
		{"bad format", []string{"exec", "--format", "xml", "--", "true"}, 2, "--format"},
		{"missing input file", []string{"exec", "--input-file", filepath.Join(dir, "nope"), "--", "true"}, 2, "--input-file"},
		{"command not found", []string{"exec", "--", "ptyhost-no-such-command"}, 127, "command not found"},
		{"path not found", []string{"exec", "--", filepath.Join(dir, "nope")}, 127, "command not found"},
		{"not executable", []string{"exec", "--", plain}, 126, "cannot execute"},
		{"run without a terminal", []string{"run", "--", "true"}, 2, "not a terminal"},
		{"run missing dashes", []string{"run", "sh"}, 2, "missing --"},
		{"run bad scrollback", []string{"run", "--scrollback", "-5", "--", "sh"}, 2, "--scrollback"},
		{"run size too large", []string{"run", "--size", "2000x50", "--", "sh"}, 2, "--size"},
		{"bad backend", []string{"exec", "--backend", "vt100", "--", "true"}, 2, "--backend"},
		{"unreadable cast", []string{"play", filepath.Join(dir, "nope.cast")}, 2, "cannot read cast"},
		{"malformed cast", []string{"play", badCast}, 2, "line 2"},
		{"no cast", []string{"play"}, 2, "missing cast file"},
		{"bad speed", []string{"play", "--speed", "0", badCast}, 2, "--speed"},
		{"format without screen", []string{"play", "--format", "json", badCast}, 2, "--screen"},
		{"version argument", []string{"version", "x"}, 2, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, "", "", tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, tt.code, r.stderr)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "ptyhost: ") || !strings.Contains(r.stderr, tt.say) {
				t.Fatalf("stderr %q, want one line starting with \"ptyhost: \" and containing %q", r.stderr, tt.say)
			}
			if r.stdout != "" {
				t.Fatalf("stdout %q, want nothing", r.stdout)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "usage: ptyhost <command>"},
		{[]string{"help"}, "usage: ptyhost <command>"},
		{[]string{"help", "exec"}, "usage: ptyhost exec"},
		{[]string{"help", "help"}, "usage: ptyhost help"},
		{[]string{"help", "--help"}, "usage: ptyhost help"},
		{[]string{"help", "-h"}, "usage: ptyhost help"},
		{[]string{"run", "--help"}, "usage: ptyhost run"},
		{[]string{"exec", "-h"}, "usage: ptyhost exec"},
		{[]string{"play", "--help"}, "usage: ptyhost play"},
		{[]string{"version", "--help"}, "usage: ptyhost version"},
		{[]string{"version"}, "ptyhost "},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := cli(t, "", "", tt.args...)
			if r.code != 0 || !strings.HasPrefix(r.stdout, tt.want) || r.stderr != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and %q", r.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
}

func TestNoArguments(t *testing.T) {
	r := cli(t, "", "")
	if r.code != 2 || !strings.Contains(r.stderr, "usage: ptyhost") {
		t.Fatalf("exit %d, stderr %q; want 2 and the usage", r.code, r.stderr)
	}
}

// TestErrorTexts checks the wording of errors: each says what is wrong
// and what is wanted, once, in the user's own terms.
func TestErrorTexts(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("echo hi\n"), 0o644)
	huge := filepath.Join(dir, "huge.cast")
	os.WriteFile(huge, []byte("{\"version\": 2, \"width\": 2000, \"height\": 2000}\n[0.1, \"o\", \"x\"]\n"), 0o644)
	limits := fmt.Sprintf("1..%d columns and 1..%d rows", ptyhost.MaxCols, ptyhost.MaxRows)
	tests := []struct {
		name   string
		args   []string
		say    string
		notSay string
	}{
		{"zero size", []string{"exec", "--size", "0x0", "--", "true"}, limits, ""},
		{"size over the limit", []string{"exec", "--size", "2000x10", "--", "true"}, limits, ""},
		{"run size over the limit", []string{"run", "--size", "2000x10", "--", "true"}, limits, ""},
		{"unknown escape", []string{"exec", "--input", `\q`, "--", "true"}, `unknown escape \q `, `\\q`},
		{"bad regex", []string{"exec", "--wait-for", "(", "--", "true"}, "missing closing ): `(`", "(?m)"},
		{"bad duration", []string{"exec", "--timeout", "banana", "--", "true"}, `--timeout "banana": want a duration like 500ms`, "parse error"},
		{"bad number", []string{"run", "--scrollback", "many", "--", "true"}, `--scrollback "many": want a whole number`, "parse error"},
		{"not executable", []string{"exec", "--", plain}, "cannot execute: permission denied", ""},
		{"directory", []string{"exec", "--", dir}, "cannot execute: it is a directory", ""},
		{"huge cast, replay", []string{"play", "--speed", "1000", huge}, "2000x2000 is out of range: want " + limits, ""},
		{"huge cast, screen", []string{"play", "--screen", huge}, "2000x2000 is out of range: want " + limits, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, "", "", tt.args...)
			if r.code != 2 && r.code != exitNoExec {
				t.Errorf("exit %d, want 2 or 126", r.code)
			}
			if !strings.Contains(r.stderr, tt.say) || (tt.notSay != "" && strings.Contains(r.stderr, tt.notSay)) {
				t.Fatalf("stderr %q, want it to say %q (and not %q)", r.stderr, tt.say, tt.notSay)
			}
			if len(tt.args) > 2 && strings.HasPrefix(tt.args[len(tt.args)-1], "/") {
				if p := tt.args[len(tt.args)-1]; strings.Count(r.stderr, p) != 1 {
					t.Errorf("stderr %q names %s more than once", r.stderr, p)
				}
			}
		})
	}
}

// TestHelpStatesLimits: --help gives the limits the flags enforce.
func TestHelpStatesLimits(t *testing.T) {
	size := fmt.Sprintf("%dx%d", ptyhost.MaxCols, ptyhost.MaxRows)
	for _, cmd := range []string{"run", "exec", "play"} {
		if r := cli(t, "", "", cmd, "--help"); !strings.Contains(r.stdout, size) {
			t.Errorf("ptyhost %s --help does not state the size limit %s:\n%s", cmd, size, r.stdout)
		}
	}
	if r := cli(t, "", "", "run", "--help"); !strings.Contains(r.stdout, fmt.Sprint(ptyhost.MaxScrollback)) {
		t.Errorf("ptyhost run --help does not state the scrollback limit:\n%s", r.stdout)
	}
}

// TestHelpAligned: every flag description in every help text starts in
// the same column as the others of its text.
func TestHelpAligned(t *testing.T) {
	for name, c := range commands {
		col := -1
		for _, l := range strings.Split(c.help, "\n") {
			if !strings.HasPrefix(l, "  --") {
				continue
			}
			j := strings.Index(l[2:], "  ")
			if j < 0 {
				continue // the description is on the next line
			}
			k := len(l) - len(strings.TrimLeft(l[2+j:], " "))
			if col < 0 {
				col = k
			}
			if k != col {
				t.Errorf("%s --help: %q starts its description in column %d, the others in %d", name, l, k, col)
			}
		}
	}
}

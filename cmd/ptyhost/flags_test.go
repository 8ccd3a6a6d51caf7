package main

import (
	"errors"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in         string
		cols, rows int
		ok         bool
	}{
		{"80x24", 80, 24, true},
		{"120X40", 120, 40, true},
		{"1x1", 1, 1, true},
		{"80", 0, 0, false},
		{"x24", 0, 0, false},
		{"80x", 0, 0, false},
		{"0x24", 0, 0, false},
		{"-1x24", 0, 0, false},
		{"+80x24", 0, 0, false},
		{"80x24x3", 0, 0, false},
		{"80 x 24", 0, 0, false},
		{"99999999x1", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, r, err := parseSize(tt.in)
			if (err == nil) != tt.ok || c != tt.cols || r != tt.rows {
				t.Fatalf("parseSize(%q) = %d, %d, %v; want %d, %d, ok=%v", tt.in, c, r, err, tt.cols, tt.rows, tt.ok)
			}
		})
	}
}

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // nil: a usage error
	}{
		{"plain", []string{"--", "ls", "-l"}, []string{"ls", "-l"}},
		{"flags first", []string{"--size", "10x5", "--", "ls"}, []string{"ls"}},
		{"child flags kept", []string{"--", "ls", "--", "-x"}, []string{"ls", "--", "-x"}},
		{"missing dashes", []string{"ls"}, nil},
		{"missing command", []string{"--size", "10x5"}, nil},
		{"nothing after dashes", []string{"--"}, nil},
		{"empty name", []string{"--", ""}, nil},
		{"unknown flag", []string{"--nope", "--", "ls"}, nil},
		{"bad size", []string{"--size", "10", "--", "ls"}, nil},
		{"missing value", []string{"--size"}, nil},
		{"dashes as a value", []string{"--input", "--", "ls"}, nil},
		{"dashes as a value, then dashes", []string{"--input", "--", "--", "ls"}, []string{"ls"}},
		{"value that looks like a flag", []string{"--input", "--size", "--", "ls"}, []string{"ls"}},
		{"value with equals", []string{"--input=--", "--", "ls"}, []string{"ls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFlagSet("exec")
			var s sizeFlag
			fs.Var(&s, "size", "")
			fs.String("input", "", "")
			got, err := parseCommand("exec", fs, tt.args)
			if tt.want == nil {
				var ue *usageError
				if !errors.As(err, &ue) {
					t.Fatalf("parseCommand(%q) = %q, %v; want a usage error", tt.args, got, err)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("parseCommand(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("parseCommand(%q) = %q; want %q", tt.args, got, tt.want)
				}
			}
		})
	}
}

func TestFlagMessage(t *testing.T) {
	tests := map[string]string{
		"flag provided but not defined: -nope":         "unknown flag --nope",
		"flag needs an argument: -size":                "--size needs a value",
		`invalid value "x" for flag -size: want COLSx`: `invalid value "x" for --size: want COLSx`,
	}
	for in, want := range tests {
		if got := flagMessage(in); got != want {
			t.Errorf("flagMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExitCode(t *testing.T) {
	var sink discard
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"ok", nil, 0},
		{"usage", usagef("exec", "bad"), 2},
		{"child", &exitStatus{code: 3}, 3},
		{"child killed", &exitStatus{code: 137}, 137},
		{"not found", &startError{code: exitNotFound, err: errors.New("x")}, 127},
		{"not executable", &startError{code: exitNoExec, err: errors.New("x")}, 126},
		{"timeout", &timeoutError{after: "1s"}, 124},
		{"interrupted", &signalError{sig: 2}, 130},
		{"internal", errors.New("boom"), 125},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err, &sink); got != tt.want {
				t.Fatalf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

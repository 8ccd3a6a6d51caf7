package main

import (
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
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

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		inter   bool
		rest    []string
		dashed  bool
		wantErr error // matched with errors.Is; nil: no error
	}{
		{"flags then args", []string{"--speed", "2", "-screen", "a.cast"}, false, []string{"a.cast"}, false, nil},
		{"equals", []string{"--speed=2", "--screen=false", "--", "x"}, false, []string{"x"}, true, nil},
		{"interspersed", []string{"a.cast", "--speed", "2", "-", "--screen"}, true, []string{"a.cast", "-"}, false, nil},
		{"stops at first argument", []string{"a.cast", "--speed", "2"}, false, []string{"a.cast", "--speed", "2"}, false, nil},
		{"help", []string{"--speed", "2", "-h"}, false, nil, false, flag.ErrHelp},
		{"unknown", []string{"--nope"}, false, nil, false, errUnknownFlag},
		{"missing value", []string{"--speed"}, false, nil, false, errNeedsValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFlagSet("play")
			var speed float64
			var screen bool
			fs.Var(floatFlag{&speed}, "speed", "")
			fs.BoolVar(&screen, "screen", false, "")
			rest, dashed, err := parseArgs(fs, tt.args, tt.inter)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("parseArgs(%q) error %v, want %v", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil || dashed != tt.dashed || strings.Join(rest, "|") != strings.Join(tt.rest, "|") {
				t.Fatalf("parseArgs(%q) = %q, %v, %v; want %q, %v", tt.args, rest, dashed, err, tt.rest, tt.dashed)
			}
		})
	}
	// A value the flag's type rejects is a *flagError carrying its reason.
	fs := newFlagSet("exec")
	var d time.Duration
	fs.Var(durationFlag{&d}, "timeout", "")
	_, _, err := parseArgs(fs, []string{"--timeout", "banana"}, false)
	var fe *flagError
	if !errors.As(err, &fe) || fe.name != "timeout" || fe.value != "banana" {
		t.Fatalf("--timeout banana: %v, want a *flagError for it", err)
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

package attachwire

import (
	"strings"
	"testing"
)

func TestCommandMarkLabels(t *testing.T) {
	for _, tc := range []struct {
		m     CommandMark
		label string
	}{
		{CommandMark{Kind: MarkPrompt}, "prompt"},
		{CommandMark{Kind: MarkCommand}, "$"},
		{CommandMark{Kind: MarkCommand, Command: "make test"}, "$ make test"},
		{CommandMark{Kind: MarkExit}, "exit"},
		{CommandMark{Kind: MarkExit, HasStatus: true}, "exit 0"},
		{CommandMark{Kind: MarkExit, Status: 130, HasStatus: true}, "exit 130"},
		{CommandMark{Kind: MarkExit, Status: -1, HasStatus: true}, "exit -1"},
	} {
		if got := tc.m.Label(); got != tc.label {
			t.Errorf("%+v.Label() = %q, want %q", tc.m, got, tc.label)
		}
		back, ok := ParseCommandMark(tc.label)
		if !ok || back != tc.m {
			t.Errorf("ParseCommandMark(%q) = %+v, %v", tc.label, back, ok)
		}
	}
}

func TestCommandMarkTextIsOneDisplayableLine(t *testing.T) {
	got := CommandMark{Kind: MarkCommand, Command: "for i in 1 2\ndo echo \x1b[31m$i\ndone\xff  "}.Label()
	if want := "$ for i in 1 2␤do echo �[31m$i␤done�"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
	long := CommandMark{Kind: MarkCommand, Command: strings.Repeat("é", MaxCommandText)}.Label()
	if len(long) > len("$ ")+MaxCommandText || !strings.HasSuffix(long, "é") {
		t.Errorf("long label: %d bytes, ends %q", len(long), long[len(long)-2:])
	}
	if got := (CommandMark{Kind: MarkCommand, Command: " \t "}).Label(); got != "$" {
		t.Errorf("blank command: %q", got)
	}
}

func TestParseCommandMarkRefusesOtherLabels(t *testing.T) {
	for _, label := range []string{"", "Prompt", "prompt ", "$$", "$x", "exit x", "exit 01", "exit +1", "exit  1", "exited 0", "half way"} {
		if m, ok := ParseCommandMark(label); ok {
			t.Errorf("ParseCommandMark(%q) = %+v, want no mark", label, m)
		}
	}
}

package attachui

import (
	"reflect"
	"strings"
	"testing"
)

func TestCommandLog(t *testing.T) {
	var l CommandLog
	for _, label := range []string{
		"exit 1", // an end before any command: the log began mid-command
		"prompt", "$ make test", "exit 2",
		"prompt", "$ ls", "exit 0",
		"half way", // a free-form marker
		"prompt", "$", "exit",
		"prompt", "$ sleep 100",
	} {
		l.Mark(label)
	}
	want := []string{
		"#1 ✗ 2   make test",
		"#2 ✓ 0   ls",
		"#3 ?     (command line not given)",
		"#4 …     sleep 100",
	}
	if got := l.Lines(80, 10); !reflect.DeepEqual(got, want) {
		t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := l.Lines(80, 2); !reflect.DeepEqual(got, want[2:]) {
		t.Errorf("last two: %q", got)
	}
	if got := l.Lines(10, 1); got[0] != "#4 …     …" {
		t.Errorf("fitted: %q", got[0])
	}
}

func TestCommandLogKeepsTheLatest(t *testing.T) {
	var l CommandLog
	for i := 0; i < MaxCommands+5; i++ {
		l.Mark("$ c")
		l.Mark("exit 0")
	}
	if l.Len() != MaxCommands {
		t.Fatalf("len %d", l.Len())
	}
	if got := l.Lines(80, 1)[0]; !strings.HasPrefix(got, "#105 ") {
		t.Errorf("newest %q", got)
	}
}

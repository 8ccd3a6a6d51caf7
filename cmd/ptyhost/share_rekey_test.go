package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// TestShareNewKeyUnderTmux: the prefix menu's new key turns away a viewer
// holding the old key, names a file (mode 0600) with the new links, and a
// viewer with the new watch line's key sees the session.
func TestShareNewKeyUnderTmux(t *testing.T) {
	tm := newTmux(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "200", "-y", "30", "/bin/sh")
	tm.typeLine(helperEnv + "=tui " + shellQuote(ptyhostBin) + " share --final-screen 1s -- " + shellQuote(self(t)) + "; echo rc=$?")
	tm.waitFor("TUI-READY")
	l := readLinks(t, tm, "main")
	if l.key == nil {
		t.Fatal("share's links carry no key")
	}
	room := l.attachURL[strings.LastIndex(l.attachURL, "/")+1:]
	old := watch(t, l.attachURL, room, l.token, attachwire.RoleViewer, false, l.key)
	tm.waitFor("viewer joined (watching)")

	tm.run("send-keys", "-t", "main", "C-]", "e")
	screen := tm.waitFor("new ones are in ")
	m := regexp.MustCompile(`new ones are in (\S+)`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no file named:\n%s", screen)
	}
	file := m[1]
	t.Cleanup(func() { os.Remove(file) })
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the links' file: %v %v", st, err)
	}
	tm.run("send-keys", "-t", "main", "q") // closes the panel
	b, _ := os.ReadFile(file)
	var watchLine string
	lines := strings.Split(string(b), "\n")
	for i, s := range lines {
		if strings.TrimSpace(s) == "Watch in a terminal:" && i+1 < len(lines) {
			watchLine = strings.TrimSpace(lines[i+1])
		}
	}
	nm := attachLineRE.FindStringSubmatch(watchLine)
	if nm == nil || nm[2] == "" || nm[1] != l.token {
		t.Fatalf("the new watch line %q: want the same token and a key", watchLine)
	}
	newKey := mustKey(t, nm[2])
	if newKey.Equal(l.key) {
		t.Fatal("the new links carry the old key")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		old.mu.Lock()
		err := old.err
		old.mu.Unlock()
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the old key's viewer was not turned away")
		}
		time.Sleep(50 * time.Millisecond)
	}
	old.stop()
	v := watch(t, l.attachURL, room, l.token, attachwire.RoleViewer, false, newKey)
	tm.typeLine("under-the-new-key")
	v.until(t, "what the sharer typed, under the new key", func(s string, _ *attachwire.Exit) bool {
		return strings.Contains(s, "got: under-the-new-key")
	})
	tm.typeLine("exit 0")
	tm.waitFor("rc=0")
}

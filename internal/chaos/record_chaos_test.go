package chaos

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// 'ptyhost share --record' onto a full disk (/dev/full: every write fails
// with ENOSPC), sharing through a relay process: the program runs to its
// end, the viewer follows it to the Exit and its last line, and share
// tells the user that the recording stopped.
func TestRecordingOntoAFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("SKIPPED: no /dev/full: %v", err)
	}
	ticks := 40
	if full() {
		ticks = 400
	}
	k := newKeys(t)
	r := newRelay(t, k)
	room := "record"
	cmd := exec.Command(ptyhostBin(t), "share", "--relay", "ws://"+r.addr, "--key", strings.TrimSuffix(k.pub, ".pub")+".key",
		"--room", room, "--final-screen", "2s", "--record", "/dev/full", "--", os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", tickerEnv, ticks))
	term, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
	if err != nil {
		t.Skipf("SKIPPED: no PTY available: %v", err)
	}
	defer term.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := term.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	shared := func() string { mu.Lock(); defer mu.Unlock(); return screen.String() }
	eventually(t, "share's links", func() bool { return strings.Contains(shared(), "Watch in a terminal") })
	// share seals the room: the watch line carries its key.
	var key *seal.Key
	eventually(t, "the room key in share's links", func() bool {
		m := regexp.MustCompile(`PTYHOST_KEY=([A-Za-z0-9_-]{43})`).FindStringSubmatch(shared())
		if m == nil {
			return false
		}
		var err error
		key, err = seal.ParseKey(m[1])
		return err == nil
	})
	v := watch(t, k, "v", r.roomURL(room), room, watchOptions{key: key})

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(patience):
		cmd.Process.Kill()
		t.Fatalf("share did not end; terminal:\n%s", tail(shared(), 2000))
	}
	<-copied
	if err != nil {
		t.Errorf("share: %v", err)
	}
	out := shared()
	told := strings.Contains(out, "share: recording stopped, the cast file is incomplete") && strings.Contains(out, "no space left on device")
	if !told {
		t.Errorf("share did not say the recording stopped; terminal tail:\n%s", tail(out, 2000))
	}
	select {
	case <-v.c.Done():
	case <-time.After(patience):
		t.Fatal("the viewer saw no Exit")
	}
	ex, ok := v.c.Exit()
	scr, _, _ := v.c.Mirror()
	last := fmt.Sprintf("tick %d", ticks)
	if !ok || !screenHas(&scr, last) {
		t.Errorf("viewer: Exit %v, screen without %q", ok, last)
	}
	report(t, "share --record /dev/full (ENOSPC on every write): program ran to %q, viewer Exit %v code %d, user told %v", last, ok, ex.Code, told)
}

// screenHas reports whether a row of the screen starts with s.
func screenHas(scr *attachwire.Screen, s string) bool {
	grid := scr.Primary
	for r := range scr.Rows {
		var row strings.Builder
		for c := range scr.Cols {
			row.WriteString(grid[r*scr.Cols+c].Content)
		}
		if strings.HasPrefix(row.String(), s) {
			return true
		}
	}
	return false
}

package main

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/attachui"
	"github.com/ptyhost/ptyhost/internal/share"
)

// shareUI is share's terminal: the session painted with a status line
// over it, and the prefix menu (internal/share's Console).
type shareUI struct {
	console *share.Console
	disp    *attachui.Display
	done    chan struct{}
	wg      sync.WaitGroup
}

// newShareUI puts a's painting and keys under share's display and menu;
// stopCarry ends the sharing (and, with the embedded relay, the relay).
func newShareUI(a *attachment, sh *share.Share, prefix byte, stopCarry func()) *shareUI {
	cols, rows, _, _, err := termSize(a.fd)
	if err != nil {
		cols, rows = a.sess.Size()
	}
	mirror := func() (attachwire.Screen, uint64, bool) {
		scr, seq, err := a.sess.Snapshot()
		return scr, seq, err == nil
	}
	u := &shareUI{disp: attachui.NewDisplay(a.out, mirror, cols, rows), done: make(chan struct{})}
	u.disp.SetDriving(true) // this terminal's keys always reach the program
	a.resizeNow = make(chan struct{}, 1)
	u.console = share.NewConsole(share.ConsoleConfig{
		Display:  u.disp,
		Prefix:   prefix,
		Controls: sh.Controls(),
		Revoker:  sh.Revoker(),
		Decide:   sh.Decide,
		RestoreSize: func() {
			select {
			case a.resizeNow <- struct{}{}:
			default:
			}
		},
		StopSharing: func() {
			stopCarry()
			if sh.Links.Embedded {
				go sh.Close() // waits for the relay's goroutine
			}
		},
		Rekey: rekeyFor(sh),
	})
	a.disp, a.keys = u.disp, u.console.Keys
	u.wg.Go(func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				u.disp.Tick(now)
			case <-u.done:
				return
			}
		}
	})
	return u
}

// rekeyFor is the menu's new key for a sealed share, nil for a plain one.
func rekeyFor(sh *share.Share) func() (string, error) {
	if sh.Links.Key == nil {
		return nil
	}
	return func() (string, error) { return rekeyLinks(sh) }
}

// rekeyLinks starts a new room key and writes the links under it to a
// file only this user can read: the program owns the screen, and a link
// is too long for the status line. It returns the sentence to show.
func rekeyLinks(sh *share.Share) (string, error) {
	l, err := sh.Rekey()
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp("", "ptyhost-links-*.txt") // mode 0600
	if err != nil {
		return "", fmt.Errorf("new key made, but its links could not be written: %w", err)
	}
	writeLinks(f, l, attachProgram(), 0)
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("new key made, but its links could not be written: %w", err)
	}
	return "new key: the old links no longer work; the new ones are in " + f.Name(), nil
}

// close stops the status line's clock and waits for the menu's controls.
func (u *shareUI) close() {
	close(u.done)
	u.wg.Wait()
	u.console.Close()
}

package main

import (
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

// close stops the status line's clock and waits for the menu's controls.
func (u *shareUI) close() {
	close(u.done)
	u.wg.Wait()
	u.console.Close()
}

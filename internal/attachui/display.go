package attachui

import (
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/repaint"
	"github.com/ptyhost/ptyhost/internal/status"
)

// NoticeFor is how long the status line stays up after a change that
// needs no lasting attention (the pen, who is here, a message).
const NoticeFor = 3 * time.Second

// Mirror returns the viewer's mirrored screen and the seq it shows (ok
// false before the first Snapshot); viewer.Client.Mirror is one.
type Mirror func() (attachwire.Screen, uint64, bool)

// Display paints a mirrored session on a terminal, with one status line
// of its own over the bottom row.
type Display struct {
	mu       sync.Mutex
	out      io.Writer
	mirror   Mirror
	rows     int          // the local terminal's rows (the status line's row)
	cols     int          // the local terminal's columns
	painted  uint64       // the terminal shows the stream up to this seq
	driving  bool         // repaint the input modes too
	state    status.State // what the status line says (Message included)
	shown    bool         // the status line is up
	until    time.Time    // when it goes, unless the state is Persistent
	panel    []string     // rows drawn above the status line, title first; nil when none
	err      error        // the first write error
	buf      []byte
	closedUI bool
}

// NewDisplay returns a Display writing to out, a terminal of cols×rows.
func NewDisplay(out io.Writer, mirror Mirror, cols, rows int) *Display {
	return &Display{out: out, mirror: mirror, cols: cols, rows: rows}
}

// Err returns the first error writing to the terminal.
func (d *Display) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// SetSize records the local terminal's new size and repaints.
// Size returns the terminal's size as the Display knows it.
func (d *Display) Size() (cols, rows int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cols, d.rows
}

// SetSize sets the terminal's size.
func (d *Display) SetSize(cols, rows int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cols, d.rows = cols, rows
	d.repaintLocked()
}

// SetDriving says whether this terminal's keys go to the session: its
// repaints then restore the program's input modes (mouse, paste, keys).
func (d *Display) SetDriving(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.driving != on {
		d.driving = on
		d.repaintLocked()
	}
}

// Snapshot paints scr, which shows the stream up to seq.
func (d *Display) Snapshot(scr *attachwire.Screen, seq uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paintLocked(scr, seq)
}

// Output paints the sanitized Output frame seq.
func (d *Display) Output(seq uint64, data []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if seq <= d.painted {
		return
	}
	if d.shown || d.panel != nil {
		d.repaintLocked()
		return
	}
	d.painted = seq
	d.write(data)
}

// ShowPanel draws title and lines over the bottom rows (above the status
// line) until HidePanel: the screen below it goes on being painted from
// the mirror. Lines are one line of text each, fitted to the width.
func (d *Display) ShowPanel(title string, lines []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.panel = append([]string{title}, lines...)
	d.repaintLocked()
}

// HidePanel takes the panel off, painting the screen back from the
// mirror, and reports whether one was up.
func (d *Display) HidePanel() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.panel == nil {
		return false
	}
	d.panel = nil
	d.repaintLocked()
	return true
}

// Resync repaints from the mirror (after a Resize frame, or to clean up).
func (d *Display) Resync() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.repaintLocked()
}

// SetState shows st on the status line when what it says changed: for
// NoticeFor, or for as long as st is Persistent (a lost connection or
// host). A message still up stays (st's own Message is ignored).
func (d *Display) SetState(st status.State) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st.Message = d.state.Message
	if status.Line(st, 0) == status.Line(d.state, 0) {
		return
	}
	d.state = st
	d.showLocked()
}

// Message shows text on the status line, first, with the state, for
// NoticeFor; a later Message replaces it.
func (d *Display) Message(text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.state.Message = text
	d.showLocked()
}

func (d *Display) showLocked() {
	d.shown = true
	d.until = time.Now().Add(NoticeFor)
	d.repaintLocked()
}

// Tick ends a message and, unless the state is Persistent, takes the
// status line off, once their time is up.
func (d *Display) Tick(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.shown || !now.After(d.until) || d.state.Persistent() && d.state.Message == "" {
		return
	}
	d.state.Message = ""
	d.shown = d.state.Persistent()
	d.repaintLocked()
}

// Line returns what the status line says now ("" when it is not up).
func (d *Display) Line() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.shown {
		return ""
	}
	return d.lineLocked()
}

func (d *Display) lineLocked() string { return status.Line(d.state, max(d.cols-1, 1)) }

// Close stops painting: later events are ignored, so the restore trailer
// written after it is the last word. A status line still up is taken off
// first (the bottom row painted back from the mirror): the status line is
// attach's, not the session's, and would otherwise stay in the user's
// terminal below the session's last screen.
func (d *Display) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closedUI {
		return
	}
	if d.shown || d.panel != nil {
		d.shown, d.panel = false, nil
		if scr, seq, ok := d.mirror(); ok {
			d.paintLocked(&scr, seq)
		} else {
			d.write([]byte("\x1b[H\x1b[2J"))
		}
	}
	d.closedUI = true
}

// repaintLocked paints the mirror, then the status line.
func (d *Display) repaintLocked() {
	scr, seq, ok := d.mirror()
	if !ok {
		if d.shown || d.panel != nil {
			d.buf = append(d.buf[:0], "\x1b[H\x1b[2J"...)
			d.buf = d.appendPanel(d.buf)
			if d.shown {
				d.buf = d.appendNotice(d.buf, 0, 0)
			}
			d.write(d.buf)
		}
		return
	}
	d.paintLocked(&scr, seq)
}

func (d *Display) paintLocked(scr *attachwire.Screen, seq uint64) {
	d.buf = repaint.AppendScreen(d.buf[:0], scr, repaint.Options{InputModes: d.driving})
	if d.panel != nil {
		d.buf = d.appendPanel(d.buf)
		if !d.shown {
			d.buf = appendCursor(d.buf, scr.CursorRow, scr.CursorCol)
		}
	}
	if d.shown {
		d.buf = d.appendNotice(d.buf, scr.CursorRow, scr.CursorCol)
	}
	d.painted = seq
	d.write(d.buf)
}

// appendNotice draws the status line on the bottom row in reverse video
// and puts the cursor back where the screen has it. The line is fitted to
// one cell less than the width, so that writing its last cell cannot
// leave a pending wrap.
func (d *Display) appendNotice(dst []byte, row, col int) []byte {
	dst = append(dst, "\x1b["...)
	dst = strconv.AppendInt(dst, int64(max(d.rows, 1)), 10)
	dst = append(dst, "H\x1b[0;7m\x1b[2K"...)
	dst = append(dst, d.lineLocked()...)
	dst = append(dst, "\x1b[0m"...)
	return appendCursor(dst, row, col)
}

// appendPanel draws the panel on the rows above the status line's, its
// title in reverse video; a panel taller than the terminal (less its top
// row) shows its title and its last lines.
func (d *Display) appendPanel(dst []byte) []byte {
	rows := d.panel
	if room := d.rows - 2; len(rows) > room {
		if room < 1 {
			return dst
		}
		rows = append([]string{rows[0]}, rows[len(rows)-room+1:]...)
	}
	first := d.rows - len(rows) // 1-based row of the title: the status row stays free
	for i, text := range rows {
		dst = append(dst, "\x1b["...)
		dst = strconv.AppendInt(dst, int64(first+i), 10)
		dst = append(dst, "H\x1b[0m\x1b[2K"...)
		if i == 0 {
			dst = append(dst, "\x1b[7m"...)
		}
		dst = append(dst, fit(text, max(d.cols-1, 1))...)
		dst = append(dst, "\x1b[0m"...)
	}
	return dst
}

// appendCursor moves the cursor to the 0-based row and col.
func appendCursor(dst []byte, row, col int) []byte {
	dst = append(dst, "\x1b["...)
	dst = strconv.AppendInt(dst, int64(row+1), 10)
	dst = append(dst, ';')
	dst = strconv.AppendInt(dst, int64(col+1), 10)
	return append(dst, 'H')
}

func (d *Display) write(p []byte) {
	if d.closedUI || d.err != nil || len(p) == 0 {
		return
	}
	if _, err := d.out.Write(p); err != nil {
		d.err = err
	}
}

package attachui

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/repaint"
)

// NoticeFor is how long a passing notice (pen, presence) stays up.
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
	rows     int      // the local terminal's rows (the status line's row)
	cols     int      // the local terminal's columns
	painted  uint64   // the terminal shows the stream up to this seq
	driving  bool     // repaint the input modes too
	notice   string   // "" when none
	parts    []string // the passing notices notice joins (see Notice)
	sticky   bool     // the notice stays until Clear (reconnecting, gone)
	until    time.Time
	err      error // the first write error
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
	if d.notice != "" {
		d.repaintLocked()
		return
	}
	d.painted = seq
	d.write(data)
}

// Resync repaints from the mirror (after a Resize frame, or to clean up).
func (d *Display) Resync() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.repaintLocked()
}

// Notice shows text on the status line: for NoticeFor, or until Clear
// when sticky. Passing notices that arrive while another is still up are
// shown side by side, newest first (at most maxNotices), so a burst on
// joining (the pen, then who is here) does not hide the first one before
// it can be read.
func (d *Display) Notice(text string, sticky bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	text = sanitize.UIString(text, 0)
	now := time.Now()
	switch {
	case sticky:
		d.parts = nil
		d.notice = text
	case d.notice != "" && !d.sticky && now.Before(d.until):
		d.parts = append(d.parts, text)
		if len(d.parts) > maxNotices {
			d.parts = d.parts[len(d.parts)-maxNotices:]
		}
		d.notice = joinNewestFirst(d.parts)
	default:
		d.parts = append(d.parts[:0], text)
		d.notice = text
	}
	d.sticky = sticky
	d.until = now.Add(NoticeFor)
	d.repaintLocked()
}

// maxNotices is how many passing notices the status line holds at once.
const maxNotices = 3

// joinNewestFirst joins notices newest first: the line is cut at the
// terminal's width, and the newest is the one the user just caused.
func joinNewestFirst(parts []string) string {
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
		if i > 0 {
			b.WriteString(" · ")
		}
	}
	return b.String()
}

// Clear removes a sticky notice (the condition it reported is over).
func (d *Display) Clear() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.notice != "" && d.sticky {
		d.notice, d.sticky, d.parts = "", false, nil
		d.repaintLocked()
	}
}

// Tick removes a passing notice whose time is up.
func (d *Display) Tick(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.notice != "" && !d.sticky && now.After(d.until) {
		d.notice, d.parts = "", nil
		d.repaintLocked()
	}
}

// Close stops painting: later events are ignored, so the restore trailer
// written after it is the last word. A notice still up is taken off
// first (the bottom row painted back from the mirror): the status line is
// attach's, not the session's, and would otherwise stay in the user's
// terminal below the session's last screen.
func (d *Display) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closedUI {
		return
	}
	if d.notice != "" {
		d.notice, d.sticky, d.parts = "", false, nil
		if scr, seq, ok := d.mirror(); ok {
			d.paintLocked(&scr, seq)
		} else {
			d.write([]byte("\x1b[H\x1b[2J"))
		}
	}
	d.closedUI = true
}

// repaintLocked paints the mirror, then the notice.
func (d *Display) repaintLocked() {
	scr, seq, ok := d.mirror()
	if !ok {
		if d.notice != "" {
			d.buf = append(d.buf[:0], "\x1b[H\x1b[2J"...)
			d.buf = d.appendNotice(d.buf, 0, 0)
			d.write(d.buf)
		}
		return
	}
	d.paintLocked(&scr, seq)
}

func (d *Display) paintLocked(scr *attachwire.Screen, seq uint64) {
	d.buf = repaint.AppendScreen(d.buf[:0], scr, repaint.Options{InputModes: d.driving})
	if d.notice != "" {
		d.buf = d.appendNotice(d.buf, scr.CursorRow, scr.CursorCol)
	}
	d.painted = seq
	d.write(d.buf)
}

// appendNotice draws the status line on the bottom row in reverse video
// and puts the cursor back where the screen has it.
func (d *Display) appendNotice(dst []byte, row, col int) []byte {
	dst = append(dst, "\x1b["...)
	dst = strconv.AppendInt(dst, int64(max(d.rows, 1)), 10)
	dst = append(dst, "H\x1b[0;7m\x1b[2K"...)
	text := d.notice
	if n := max(d.cols-1, 1); len([]rune(text)) > n {
		text = string([]rune(text)[:n])
	}
	dst = append(dst, text...)
	dst = append(dst, "\x1b[0m\x1b["...)
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

package xvt

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"sync/atomic"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// Terminal is a term.Terminal backed by a charmbracelet/x/vt Emulator. It
// is not safe for concurrent use, except that Close may be called while no
// other method runs, from any goroutine.
type Terminal struct {
	emu  *vt.Emulator
	opts term.Options
	f    filter

	cols, rows int
	pxW, pxH   int

	ans    []byte // answer scratch, handed to opts.Answer
	oscBEL bool   // the OSC being dispatched ended with BEL

	modes modeSet
	pens  penState // the SGR pen, mirrored for DECRQSS and ED 1
	// scusr is the last DECSCUSR parameter (0-6).
	scusr int
	// top and bottom are the DECSTBM margins, 1-based; 0 means the screen
	// edge.
	top, bottom int

	// While the alternate screen is active, x/vt offers no access to the
	// primary one: its cells and cursor are copied on the way in (the
	// primary cannot change until the way out, resizes aside).
	primary            []attachwire.Cell
	savedCol, savedRow int
	// fixups are cursor moves owed after the mode change being fed, in
	// parameter order (see applyFixups).
	fixups []fixup
	// alt1049 is the cursor ?1049h saved, which ?1049l restores.
	alt1049 savedPos

	runX0 int // cursor column where the current text run began

	stray     atomic.Int64 // bytes x/vt wrote to its answer pipe on its own
	drainDone chan struct{}
	closed    bool
}

var _ term.Terminal = (*Terminal)(nil)

// Limits on the grid size New and Resize accept.
const (
	MaxCols = 4096
	MaxRows = 4096
)

// ErrSize reports a grid size outside 1..MaxCols × 1..MaxRows.
var ErrSize = errors.New("xvt: grid size out of range")

// New returns a terminal of opts.Cols × opts.Rows and starts the goroutine
// that drains x/vt's answer pipe; Close stops it.
func New(opts term.Options) (*Terminal, error) {
	if opts.Cols < 1 || opts.Rows < 1 || opts.Cols > MaxCols || opts.Rows > MaxRows {
		return nil, fmt.Errorf("%w: %dx%d", ErrSize, opts.Cols, opts.Rows)
	}
	if opts.Scrollback < 0 {
		opts.Scrollback = 0
	}
	t := &Terminal{
		emu:       vt.NewEmulator(opts.Cols, opts.Rows),
		opts:      opts,
		f:         newFilter(opts.Cols, opts.Rows),
		cols:      opts.Cols,
		rows:      opts.Rows,
		modes:     newModeSet(),
		drainDone: make(chan struct{}),
	}
	// x/vt reads a maximum of 0 as "its default of 10000".
	t.emu.SetScrollbackSize(max(opts.Scrollback, 1))
	t.emu.SetDefaultForegroundColor(rgb(term.DefaultFg()))
	t.emu.SetDefaultBackgroundColor(rgb(term.DefaultBg()))
	t.emu.SetDefaultCursorColor(rgb(term.DefaultCursor()))
	t.emu.SetCallbacks(vt.Callbacks{
		EnableMode:  func(m ansiMode) { t.modes.set(m, true) },
		DisableMode: func(m ansiMode) { t.modes.set(m, false) },
	})
	t.registerHooks()
	go t.drain()
	return t, nil
}

func rgb(c [3]uint8) color.Color { return color.RGBA{c[0], c[1], c[2], 0xff} }

// drain reads x/vt's answer pipe until Close. Every query x/vt would
// answer is answered by the hooks instead, synchronously and in order, so
// anything read here is counted and discarded: forwarding it would put it
// out of order with the hooks' answers.
func (t *Terminal) drain() {
	defer close(t.drainDone)
	buf := make([]byte, 512)
	for {
		n, err := t.emu.Read(buf)
		t.stray.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// Write feeds bytes the child wrote. Answers to queries are passed to
// Options.Answer before Write returns, in query order.
func (t *Terminal) Write(p []byte) {
	if t.closed {
		return
	}
	for len(p) > 0 {
		n, ev := t.f.scan(p)
		p = p[n:]
		switch ev {
		case evRunStart:
			t.flush()
			t.runX0 = t.emu.CursorPosition().X
		case evOSCBEL, evOSCST:
			t.oscBEL = ev == evOSCBEL
			t.flush()
		case evFixups:
			t.flush()
			t.applyFixups()
		case evDECALN:
			t.flush()
			t.decaln()
		case evWide:
			t.wide()
		}
	}
	t.flush()
}

// savedPos is a saved cursor position.
type savedPos struct {
	col, row int
	ok       bool
}

// fixup is a cursor move x/vt leaves out of a mode change.
type fixup struct {
	kind     fixKind
	col, row int // for fixPosition: 0-based, absolute
}

type fixKind uint8

const (
	fixHome     fixKind = iota // ?6 h/l: xterm and tmux home the cursor
	fixPosition                // ?1049 h/l, ?1047 h/l: the cursor goes to col, row
	fixMargins                 // a screen switch: x/vt keeps margins per screen, xterm globally
	fixRow                     // IL, DL: the cursor stays on its row
)

// applyFixups applies the cursor moves xterm and tmux make and x/vt does
// not: x/vt homes the cursor on entering the alternate screen, keeps the
// primary's on leaving ?1047, never restores on ?1049l outside the
// alternate screen, ignores the home on ?6, and after IL or DL inside a
// scroll region that does not start at the top moves the cursor down by
// the top margin. The moves are fed to x/vt as CUP; a position
// outside the margins in origin mode cannot be reached by CUP and is left
// alone.
func (t *Terminal) applyFixups() {
	for _, fx := range t.fixups {
		switch fx.kind {
		case fixHome:
			t.ans = append(t.ans[:0], "\x1b[H"...)
		case fixMargins:
			if t.top == 0 && t.bottom == 0 {
				continue
			}
			bottom := t.bottom
			if bottom == 0 {
				bottom = t.rows
			}
			t.ans = fmt.Appendf(t.ans[:0], "\x1b[%d;%dr", max(t.top, 1), bottom)
		case fixRow, fixPosition:
			row, col := fx.row, fx.col
			if fx.kind == fixRow {
				pos := t.emu.CursorPosition()
				if pos.Y == row {
					continue
				}
				col = pos.X
			}
			if t.modes.dec(6) {
				top, bottom := max(t.top, 1)-1, t.rows
				if t.bottom > 0 {
					bottom = t.bottom
				}
				if row < top || row >= bottom {
					continue
				}
				row -= top
			}
			t.ans = fmt.Appendf(t.ans[:0], "\x1b[%d;%dH", row+1, col+1)
		}
		_, _ = t.emu.Write(t.ans)
	}
	t.fixups = t.fixups[:0]
}

// decaln implements DECALN (ESC # 8), which x/vt ignores: the screen
// fills with E in the default rendition, the margins reset and the cursor
// goes home (DECSTBM without parameters does both in x/vt).
func (t *Terminal) decaln() {
	e := uv.EmptyCell
	e.Content = "E"
	for y := range t.rows {
		for x := range t.cols {
			t.emu.SetCell(x, y, &e)
		}
	}
	_, _ = t.emu.Write([]byte("\x1b[r"))
}

// wide runs before a wide character that starts a cluster, held by the
// filter. With autowrap on, a glyph that would start in the last column
// wraps first, and one that ends in it leaves a wrap pending, as in xterm
// and tmux (x/vt cuts the first and lets the character after the second
// overwrite its right half).
func (t *Terminal) wide() {
	f := &t.f
	if !t.modes.dec(7) || t.cols < 3 {
		f.insertIfIRM(2)
		f.releaseRune()
		return
	}
	if f.wrapNext {
		f.wrapIfPending()
	} else {
		t.flush()
		switch t.emu.CursorPosition().X {
		case t.cols - 1:
			// Phantom or not, CR LF leaves the cursor where the wrap
			// would: the start of the next row.
			f.out = append(f.out, '\r', '\n')
		case t.cols - 2:
			f.wrapNext = true
		}
	}
	f.insertIfIRM(2)
	f.releaseRune()
}

func (t *Terminal) flush() {
	if len(t.f.out) == 0 {
		return
	}
	_, _ = t.emu.Write(t.f.out)
	t.f.out = t.f.out[:0]
}

// Resize changes the grid size; sizes outside 1..MaxCols × 1..MaxRows are
// clamped into it.
func (t *Terminal) Resize(cols, rows, pxWidth, pxHeight int) {
	if t.closed {
		return
	}
	cols, rows = min(max(cols, 1), MaxCols), min(max(rows, 1), MaxRows)
	if t.emu.IsAltScreen() && (cols != t.cols || rows != t.rows) {
		t.primary = resizeCells(t.primary, t.cols, t.rows, cols, rows)
		t.savedCol, t.savedRow = min(t.savedCol, cols-1), min(t.savedRow, rows-1)
	}
	t.emu.Resize(cols, rows)
	t.cols, t.rows, t.pxW, t.pxH = cols, rows, pxWidth, pxHeight
	t.f.cols, t.f.rows = cols, rows
	t.top, t.bottom = 0, 0
	t.f.inRun = false
}

// Size returns the current grid size.
func (t *Terminal) Size() (cols, rows int) { return t.cols, t.rows }

// Close stops the drain goroutine and returns once it has exited. It is
// idempotent.
func (t *Terminal) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	// Closing the pipe's write end ends the drain's Read with io.EOF.
	// Emulator.Close would do the same but also sets a flag the draining
	// Read checks without synchronisation.
	if c, ok := t.emu.InputPipe().(io.Closer); ok {
		_ = c.Close()
	} else {
		_ = t.emu.Close()
	}
	<-t.drainDone
	return nil
}

// answer hands an answer to Options.Answer.
func (t *Terminal) answer(p []byte) {
	if t.opts.Answer != nil && len(p) > 0 {
		t.opts.Answer(p)
	}
}

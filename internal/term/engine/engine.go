package engine

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// Size limits applied by New and Resize: a grid larger than this is
// clamped, so memory stays fixed by size and scrollback.
const (
	maxCols       = 4096
	maxRows       = 2048
	maxScrollback = 1 << 20
)

var _ term.Terminal = (*Engine)(nil)

// Engine is the in-house headless terminal. It is not safe for concurrent
// use: callers serialize Write, Resize, Size, Screen and Close.
type Engine struct {
	cols, rows int
	pxW, pxH   int
	answerFn   func([]byte)
	version    string
	answerBuf  []byte
	closed     bool

	p parser

	prim, alt *buffer
	scr       *buffer // the active buffer: prim or alt
	altActive bool
	sb        scrollback
	ct        clusters

	cur cursor
	// saved is the DECSC slot; altSaved the one ?1049 uses.
	saved, altSaved savedCursor
	// altReturn is where the primary cursor goes back to when the
	// alternate screen is left: the Screen's saved cursor while it is
	// active.
	altReturnRow, altReturnCol int

	top, bot int // scroll region, inclusive, 0-based
	tabs     []bool

	mode modes

	// lastRune is the last graphic character printed, for REP (-1: none).
	lastRune rune
	// joinNext makes the next printed character join the previous cell's
	// cluster (it follows a zero width joiner).
	joinNext bool
	// widths caches runeWidth (see width).
	widths [256]uint32

	fgColor, bgColor, cursorColor [3]uint8
	title                         []byte

	// work counts inner-loop steps (cells touched, bytes scanned); tests
	// use it to check the per-byte work bound.
	work uint64

	// noSpans keeps every row in cell form and prints non-ASCII text a
	// character at a time (printRune), without printText: tests compare
	// the fast paths against it.
	noSpans bool
}

// cursor is the cursor state DECSC saves and DECRC restores.
type cursor struct {
	row, col    int
	pen         pen
	wrapPending bool
	origin      bool
	charsets    [2]charset
	gl          uint8 // 0: G0 invoked into GL, 1: G1
}

type savedCursor struct {
	cursor
	valid bool
}

// modes are the terminal modes that do not travel with DECSC.
type modes struct {
	insert, autowrap, cursorVisible      bool
	appCursor, appKeypad, bracketedPaste bool
	focus, cursorBlink, reverse, sync    bool
	mouse                                attachwire.MouseProto // tracking nibble, 0 off
	mouseUTF8, mouseSGR, mouseURXVT      bool
	cursorStyle                          int // DECSCUSR Ps, 0-6
}

// New returns an engine of opts.Cols × opts.Rows (each at least 1 and
// clamped to an upper bound) keeping opts.Scrollback lines.
func New(opts term.Options) *Engine {
	cols := min(max(opts.Cols, 1), maxCols)
	rows := min(max(opts.Rows, 1), maxRows)
	e := &Engine{
		cols:     cols,
		rows:     rows,
		answerFn: opts.Answer,
		version:  opts.Version,
	}
	e.sb.max = min(max(opts.Scrollback, 0), maxScrollback)
	e.ct.limit = maxClusters
	e.prim = newBuffer(cols, rows)
	e.scr = e.prim
	e.reset()
	return e
}

// reset puts every state RIS resets back to its power-on value; the
// primary scrollback is kept.
func (e *Engine) reset() {
	e.p = parser{}
	if e.altActive {
		e.altActive = false
		e.scr = e.prim
	}
	e.prim.clear(0)
	e.cur = cursor{}
	e.saved, e.altSaved = savedCursor{}, savedCursor{}
	e.top, e.bot = 0, e.rows-1
	e.mode = modes{autowrap: true, cursorVisible: true}
	e.resetTabs()
	e.lastRune = -1
	e.joinNext = false
	e.fgColor, e.bgColor, e.cursorColor = term.DefaultFg(), term.DefaultBg(), term.DefaultCursor()
	e.title = e.title[:0]
	// The cluster table stays: scrollback rows kept as cells refer to it.
	// Collection drops what the cleared screens no longer use.
	if e.ct.next == 0 {
		e.ct.next = min(e.clusterBudget(), e.ct.limit)
	}
}

// steps returns the work done so far: inner-loop steps of the parser,
// the buffers and scrollback (a buffer replaced by a resize takes its
// count with it; tests measure between resizes).
func (e *Engine) steps() uint64 {
	n := e.work + e.prim.work + e.sb.work
	if e.alt != nil {
		n += e.alt.work
	}
	return n
}

// Size returns the grid size.
func (e *Engine) Size() (cols, rows int) { return e.cols, e.rows }

// Title returns the last title set with OSC 0 or 2 (bounded, unsanitized:
// callers showing it make it safe first).
func (e *Engine) Title() string { return string(e.title) }

// Close drops the answer callback; the engine has no goroutines. It is
// idempotent.
func (e *Engine) Close() error {
	e.closed = true
	e.answerFn = nil
	return nil
}

// answer hands one answer to the callback. Answers are built in
// answerBuf, so they cost no allocation once it has grown.
func (e *Engine) answer(p []byte) {
	if e.answerFn != nil && len(p) > 0 {
		e.answerFn(p)
	}
	e.answerBuf = p[:0]
}

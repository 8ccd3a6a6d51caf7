package xvt

import (
	"strconv"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// The filter is the pre-pass every byte crosses before x/vt sees it. It
// follows the byte stream with x/vt's own transition table, so both agree
// on where every sequence starts and ends, and:
//
//   - re-serializes each CSI sequence from parsed, saturated parameters:
//     no parameter exceeds maxParam (x/vt keeps only 31 bits, which turns
//     CSI 4294967302 n into CSI 6 n), and the counts of cursor, erase,
//     insert, delete, scroll, tab and repeat sequences are clamped to the
//     screen so none costs more than the screen's size;
//   - drops ?2048 (in-band resize reports) from mode changes, so x/vt never
//     answers a resize on its own, and turns ?47 into ?1047, the one x/vt
//     knows;
//   - stops at the points where the terminal has to look at x/vt's state
//     in step with the stream: the end of an OSC 4/10/11/12 (the answer
//     needs the query's terminator) and the first printable byte of a run
//     of text (the pending-wrap state is derived from the run).
//
// Its state is bounded (one CSI's parameters) and it does O(1) work per
// byte; input split anywhere gives the same output.
type filter struct {
	cols, rows int

	state     parser.State
	utf8      int // continuation bytes still expected in Utf8State
	out       []byte
	csi       csiSeq
	oscNum    int  // OSC command number so far
	oscDigits bool // oscNum has at least one digit
	oscEnd    bool // the command number is complete
	escInter  byte // the last intermediate of an ESC sequence

	// The current run of text (see Terminal.pendingWrap).
	inRun    bool
	runASCII bool
	runN     int

	// irm is insert mode (CSI 4 h), which x/vt does not implement: the
	// filter inserts blanks (ICH) before each printed character instead.
	// u8 holds a UTF-8 character until its width is known.
	irm bool
	u8  []byte

	// x/vt writes a wide glyph that starts in the last column there, cut,
	// and after one that ends in the last column it leaves the cursor there
	// without a pending wrap, so the next character overwrites the glyph's
	// right half. The filter stops before each wide character (evWide) so
	// that the terminal can wrap first, and sets wrapNext after one that
	// fills the last column: the next character that starts a cluster is
	// preceded by CR LF, which is what the wrap does.
	wrapNext bool
	prevZWJ  bool // the last character was U+200D (the next one joins it)

	// printed is set when the last thing in the stream was a printed
	// character: REP repeats only then, as in tmux and ECMA-48, where x/vt
	// repeats the last character whatever came between.
	printed bool

	// origin is origin mode (?6): x/vt's CR then moves the cursor down by
	// the top margin, so the filter writes CHA 1 for it.
	origin bool
}

// maxParam is the largest CSI parameter value passed to x/vt, as in xterm.
const maxParam = 65535

// maxParams is the number of CSI parameters x/vt collects; the rest are
// ignored by both.
const maxParams = parser.MaxParamsSize

// csiSeq is a CSI sequence being collected.
type csiSeq struct {
	prefix, inter byte
	n             int // parameters started (separators seen + 1), 0 when none
	present       uint64
	colon         uint64 // parameter i is followed by ':'
	val           [maxParams]uint32
}

// event tells the terminal why scan stopped.
type event uint8

const (
	evNone     event = iota // all input consumed
	evRunStart              // stopped before the first byte of a text run
	evOSCBEL                // an OSC 4/10/11/12 ended with BEL
	evOSCST                 // an OSC 4/10/11/12 ended with ESC or ST
	evDECALN                // ESC # 8 was written
	evWide                  // stopped before a wide character, held in u8
	evFixups                // a sequence after which hooks may have queued fixups (?6, ?1047, ?1049, IL, DL)
)

func newFilter(cols, rows int) filter {
	return filter{cols: cols, rows: rows, state: parser.GroundState}
}

// scan filters p into f.out until it is consumed (evNone) or until an event
// the terminal must handle before the rest is fed. It returns the number of
// bytes consumed.
func (f *filter) scan(p []byte) (int, event) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		if f.state == parser.Utf8State {
			f.u8 = append(f.u8, b)
			if f.utf8--; f.utf8 == 0 {
				f.state = parser.GroundState
				if ev := f.finishRune(); ev != evNone {
					return i + 1, ev
				}
			}
			continue
		}
		if f.inRun && !f.irm && f.state == parser.GroundState && b >= 0x20 && b < 0x7f {
			// Fast path: a run of printable ASCII continuing a text run.
			f.wrapIfPending()
			f.prevZWJ, f.printed = false, true
			j := i + 1
			for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
				j++
			}
			f.out = append(f.out, p[i:j]...)
			f.runN += j - i
			i = j - 1
			continue
		}
		next, action := parser.Table.Transition(f.state, b)
		if action == parser.PrintAction || next == parser.Utf8State {
			if !f.inRun {
				f.inRun, f.runASCII, f.runN = true, true, 0
				return i, evRunStart
			}
			f.runN++
			if b >= 0x80 {
				f.runASCII = false
			}
		}
		if ev := f.step(b, next, action); ev != evNone {
			return i + 1, ev
		}
	}
	return len(p), evNone
}

// step applies one transition of x/vt's table.
func (f *filter) step(b byte, next parser.State, action parser.Action) event {
	prev := f.state
	f.state = next
	switch {
	case next == parser.Utf8State:
		// A lead byte: x/vt collects the rest blindly (an aborted CSI is
		// dropped, as x/vt drops it).
		f.utf8 = utf8Len(b) - 1
		f.u8 = append(f.u8[:0], b)
		return evNone
	case next == parser.CsiEntryState && action == parser.ClearAction:
		f.csi = csiSeq{}
		f.out = append(f.out, b)
		return evNone
	case isCSI(prev) && isCSI(next) && action != parser.ExecuteAction:
		f.collect(b, action)
		return evNone
	case isCSI(prev) && action == parser.DispatchAction:
		return f.dispatchCSI(b)
	case isCSI(prev) && next == parser.GroundState && action == parser.IgnoreAction:
		// A parameter byte after an intermediate: x/vt discards the
		// sequence; CAN makes it discard what it was given of it.
		f.out = append(f.out, 0x18)
		f.endRun()
		return evNone
	}
	if action == parser.PrintAction {
		f.wrapIfPending()
		if f.irm {
			f.insertBlanks(1)
		}
		f.prevZWJ, f.printed = false, true
	}
	if action == parser.ExecuteAction || (action == parser.DispatchAction && !isCSI(prev)) {
		f.printed = false
	}
	if prev == parser.EscapeState && action == parser.DispatchAction && b == 'E' {
		// NEL, which x/vt ignores: IND then CR (the ESC is already out).
		f.out = append(f.out, 'D')
		f.carriageReturn()
		f.endRun()
		return evNone
	}
	if prev == parser.GroundState && b == '\r' {
		f.carriageReturn()
		f.endRun()
		return evNone
	}
	f.out = append(f.out, b)
	switch {
	case next == parser.OscStringState && prev != parser.OscStringState:
		f.oscNum, f.oscDigits, f.oscEnd = 0, false, false
	case prev == parser.OscStringState:
		return f.osc(b, action)
	case action == parser.ExecuteAction:
		// NUL, BEL and DEL leave the cursor alone.
		if b != 0x00 && b != 0x07 && b != 0x7f {
			f.endRun()
		}
	case action == parser.DispatchAction && prev == parser.EscapeState:
		// Keypad modes, DECSC, HTS and ST leave the cursor alone; charset
		// designations come from EscapeIntermediateState.
		if b != '=' && b != '>' && b != '7' && b != 'H' && b != '\\' {
			f.endRun()
		}
		if b == 'c' {
			f.irm, f.origin = false, false // RIS
		}
	case action == parser.CollectAction && next == parser.EscapeIntermediateState:
		f.escInter = b
	case action == parser.DispatchAction && prev == parser.EscapeIntermediateState:
		if f.escInter == '#' && b == '8' {
			f.endRun()
			return evDECALN
		}
	}
	return evNone
}

func isCSI(s parser.State) bool {
	return s == parser.CsiEntryState || s == parser.CsiParamState || s == parser.CsiIntermediateState
}

// osc follows an OSC string to learn its command number (its leading
// digits, as x/vt reads it) and terminator.
func (f *filter) osc(b byte, action parser.Action) event {
	switch action {
	case parser.PutAction:
		if f.oscEnd {
			break
		}
		if b >= '0' && b <= '9' {
			f.oscNum = min(f.oscNum*10+int(b-'0'), maxParam)
			f.oscDigits = true
		} else {
			f.oscEnd = true
		}
	case parser.DispatchAction:
		if !f.oscDigits {
			break
		}
		switch f.oscNum {
		case 4, 10, 11, 12:
			if b == 0x07 {
				return evOSCBEL
			}
			return evOSCST
		}
	}
	return evNone
}

// collect records one byte of a CSI sequence.
func (f *filter) collect(b byte, action parser.Action) {
	c := &f.csi
	switch action {
	case parser.PrefixAction:
		c.prefix = b
	case parser.CollectAction:
		c.inter = b
	case parser.ParamAction:
		if c.n == 0 {
			c.n = 1
		}
		i := c.n - 1
		if i >= maxParams {
			return
		}
		switch {
		case b >= '0' && b <= '9':
			c.present |= 1 << i
			c.val[i] = min(c.val[i]*10+uint32(b-'0'), maxParam)
		case b == ':' || b == ';':
			if b == ':' {
				c.colon |= 1 << i
			}
			c.n++
		}
	}
}

// dispatchCSI writes the collected sequence, clamped, or CAN when it is
// dropped, and updates the text run.
func (f *filter) dispatchCSI(final byte) event {
	c := &f.csi
	if c.prefix == 0 && c.inter == 0 {
		f.clamp(final)
	}
	if c.prefix == 0 && c.inter == 0 && (final == 'h' || final == 'l') {
		for i := range min(c.n, maxParams) {
			if c.present&(1<<i) != 0 && c.val[i] == 4 {
				f.irm = final == 'h'
			}
		}
	}
	ev := evNone
	if c.prefix == '?' && c.inter == 0 && (final == 'h' || final == 'l') {
		f.dropParam(2048)
		for i := range min(c.n, maxParams) {
			if c.present&(1<<i) != 0 && c.val[i] == 47 {
				c.val[i] = 1047 // x/vt knows only the later form of the switch
			}
		}
		if c.n == 0 {
			f.out = append(f.out, 0x18)
			return evNone
		}
		for i := range min(c.n, maxParams) {
			if v := c.val[i]; c.present&(1<<i) != 0 && (v == 6 || v == 1047 || v == 1049) {
				ev = evFixups
				if v == 6 {
					f.origin = final == 'h'
				}
			}
		}
	}
	plain := c.prefix == 0 && c.inter == 0
	switch {
	case plain && final == 'b' && !f.printed:
		f.out = append(f.out, 0x18) // nothing to repeat
		return evNone
	case plain && final == 'b':
		// REP prints: wrap first (x/vt executes C0 inside a CSI). A second
		// REP repeats nothing, as in tmux.
		f.wrapIfPending()
		f.printed = false
	case plain && (final == 'L' || final == 'M'):
		ev = evFixups
		f.printed = false
	default:
		f.printed = false
	}
	n := min(c.n, maxParams)
	if c.prefix != 0 {
		f.out = append(f.out, c.prefix)
	}
	for i := range n {
		if c.present&(1<<i) != 0 {
			f.out = strconv.AppendUint(f.out, uint64(c.val[i]), 10)
		}
		if i < n-1 {
			if c.colon&(1<<i) != 0 {
				f.out = append(f.out, ':')
			} else {
				f.out = append(f.out, ';')
			}
		}
	}
	if c.inter != 0 {
		f.out = append(f.out, c.inter)
	}
	f.out = append(f.out, final)
	switch {
	case c.prefix == 0 && c.inter == 0 && final == 'm':
		// SGR leaves the cursor alone.
	case c.prefix == 0 && c.inter == 0 && final == 'b' && f.inRun:
		f.runN += f.param(0, 1)
	default:
		f.endRun()
	}
	return ev
}

// param returns parameter i of the current CSI, or def when it is absent
// or 0.
func (f *filter) param(i, def int) int {
	if i >= f.csi.n || f.csi.present&(1<<i) == 0 || f.csi.val[i] == 0 {
		return def
	}
	return int(f.csi.val[i])
}

// clamp bounds the counts of plain CSI sequences by the screen size.
func (f *filter) clamp(final byte) {
	c := &f.csi
	limit := func(i, n int) {
		if i < min(c.n, maxParams) {
			c.val[i] = min(c.val[i], uint32(max(n, 1)))
		}
	}
	switch final {
	case 'A', 'B', 'E', 'F', 'L', 'M', 'S', 'T', 'd', 'e', 'r':
		for i := range min(c.n, maxParams) {
			limit(i, f.rows)
		}
	case 'C', 'D', 'G', 'I', 'Z', '@', 'P', 'X', '`', 'a', 's':
		for i := range min(c.n, maxParams) {
			limit(i, f.cols)
		}
	case 'H', 'f':
		limit(0, f.rows)
		limit(1, f.cols)
	case 'b':
		for i := range min(c.n, maxParams) {
			limit(i, min(f.cols*f.rows, maxParam))
		}
	}
}

// dropParam removes every parameter equal to v from the current CSI.
func (f *filter) dropParam(v uint32) {
	c := &f.csi
	n := min(c.n, maxParams)
	var kept csiSeq
	kept.prefix, kept.inter = c.prefix, c.inter
	for i := range n {
		if c.present&(1<<i) != 0 && c.val[i] == v {
			continue
		}
		j := kept.n
		kept.n++
		kept.val[j] = c.val[i]
		kept.present |= (c.present >> i & 1) << j
	}
	*c = kept
}

// finishRune writes the UTF-8 character held in u8, or stops before it
// (evWide) when it is wide and starts a cluster; the terminal then calls
// releaseRune. In insert mode the character comes after as many blanks
// (ICH) as it is wide.
func (f *filter) finishRune() event {
	r, _ := utf8.DecodeRune(f.u8)
	w := ansi.StringWidth(string(r))
	starts := !f.prevZWJ && !joins(r)
	f.prevZWJ = r == 0x200d
	switch {
	case w == 2 && starts:
		return evWide
	case w > 0 && starts:
		f.wrapIfPending()
	}
	if f.irm {
		f.insertBlanks(w)
	}
	f.releaseRune()
	return evNone
}

// insertIfIRM writes the ICH for a character of width w in insert mode.
func (f *filter) insertIfIRM(w int) {
	if f.irm {
		f.insertBlanks(w)
	}
}

// insertBlanks writes the ICH that makes room for a character of width w
// in insert mode.
func (f *filter) insertBlanks(w int) {
	switch w {
	case 0:
	case 1:
		f.out = append(f.out, "\x1b[@"...)
	default:
		f.out = append(f.out, "\x1b["...)
		f.out = strconv.AppendInt(f.out, int64(w), 10)
		f.out = append(f.out, '@')
	}
}

// releaseRune writes the held character.
func (f *filter) releaseRune() {
	f.out = append(f.out, f.u8...)
	f.u8 = f.u8[:0]
	f.printed = true
}

// carriageReturn writes CR, or CHA 1 in origin mode.
func (f *filter) carriageReturn() {
	if f.origin {
		f.out = append(f.out, "\x1b[G"...)
		return
	}
	f.out = append(f.out, '\r')
}

// wrapIfPending writes the CR LF a pending wrap owes before a character.
func (f *filter) wrapIfPending() {
	if f.wrapNext {
		f.out = append(f.out, '\r', '\n')
		f.wrapNext = false
	}
}

// endRun ends the text run: the cursor moved (or may have), and a pending
// wrap is cancelled as in xterm.
func (f *filter) endRun() {
	f.inRun, f.wrapNext, f.prevZWJ = false, false, false
}

// joins reports whether r, wide or not, extends the grapheme cluster before
// it in the cases the wide-glyph fix must leave alone: emoji modifiers,
// regional indicators (flags pair up) and Hangul jamo (they compose).
func joins(r rune) bool {
	return (r >= 0x1f3fb && r <= 0x1f3ff) || (r >= 0x1f1e6 && r <= 0x1f1ff) ||
		(r >= 0x1100 && r <= 0x11ff) || (r >= 0xa960 && r <= 0xa97f) || (r >= 0xd7b0 && r <= 0xd7ff)
}

func utf8Len(b byte) int {
	switch {
	case b >= 0xf0:
		return 4
	case b >= 0xe0:
		return 3
	default:
		return 2
	}
}

package engine

// ground runs the ground state's common events from b[i] on, in order of
// frequency in real output: printable ASCII runs, CSI sequences (SGR
// above all), CR, LF and whole UTF-8 characters. Staying in this loop
// from one event to the next, instead of going back through Write's
// checks of the decoder and the parser state, is what makes a stream of
// short runs between escape sequences cheap. It returns the index of the
// first byte it left to the state machine: one it does not handle, or the
// next byte of a sequence it began but could not finish in b.
func (e *Engine) ground(b []byte, i int) int {
	p := &e.p
	for i < len(b) {
		c := b[i]
		switch {
		case c-0x20 < 0x5f:
			// Printing may go on through a sequence it then leaves
			// unfinished (appendSpans).
			if i += e.printASCII(b[i:]); p.state != stGround {
				return i
			}
		case c == 0x1B:
			if i+2 < len(b) && b[i+1] == '[' {
				if v, next, ok := shortSGR(b, i+2); ok {
					// Nothing reads the parser's parameters in the
					// ground state (every sequence clears them when it
					// starts), so the code goes straight to the pen.
					sgrOps[v].apply(&e.cur.pen)
					e.lastRune = -1
					i = next
					continue
				}
			}
			e.clearSeq(stEscape)
			i++
			if i == len(b) || b[i] != '[' {
				return i
			}
			p.state = stCSIEntry
			if i = e.csiFast(b, i+1); p.state != stGround {
				return i
			}
		case c == '\r':
			e.cur.col = 0
			e.cur.wrapPending = false
			e.lastRune = -1
			i++
		case c == '\n':
			e.lastRune = -1
			e.index()
			i++
		case c >= 0xC2 && c < 0xF5:
			// Text appended to a row of cells, the usual case, goes
			// on in printText as long as it can.
			if k := e.printText(b[i:]); k > 0 {
				i += k
				continue
			}
			// A whole, valid UTF-8 character (not C1): decode it here;
			// anything else goes through the decoder in byte.
			r, size := decodeText(b[i:])
			if size <= 1 || r < 0xA0 {
				return i
			}
			e.printRune(r)
			i += size
		default:
			return i
		}
	}
	return i
}

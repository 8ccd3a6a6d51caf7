package engine

import "github.com/ptyhost/ptyhost/internal/term"

// Constant answers, from the shared encoders.
const (
	daPrimary   = term.DA1
	daSecondary = term.DA2
)

func appendXTVERSION(dst []byte, version string) []byte {
	return term.AppendXTVERSION(dst, version)
}

// deviceStatus answers DSR: 5 (status), 6 (cursor position; with '?' the
// DECXCPR form) and ?996 (color scheme). Others get no answer.
func (e *Engine) deviceStatus(private bool) {
	switch ps := e.p.arg0(0); {
	case ps == 5 && !private:
		e.answer(append(e.answerBuf, term.DSROK...))
	case ps == 6:
		row, col := e.cur.row, e.cur.col
		if e.cur.origin {
			row -= e.top
		}
		e.answer(term.AppendCPR(e.answerBuf, row+1, col+1, private))
	case ps == 996 && private:
		e.answer(append(e.answerBuf, term.ColorSchemeDark...))
	}
}

// windowOp answers the size reports CSI 18 t, 14 t and 16 t; every other
// window operation (titles, stacks, moves) is ignored.
func (e *Engine) windowOp(ps int) {
	switch ps {
	case 14, 16, 18:
		e.answer(term.AppendWindowReport(e.answerBuf, ps, e.cols, e.rows, e.pxW, e.pxH))
	}
}

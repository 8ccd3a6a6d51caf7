package engine

import (
	"reflect"
	"testing"
)

// FuzzEngine feeds arbitrary bytes, split into chunks and with a resize
// in the middle, and checks that nothing panics, that every Screen keeps
// its invariants and encodes as AppendSnapshot does, that the work stays
// within workBudget, and that the screen and answers are those of the
// same input written whole.
func FuzzEngine(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		cols, rows := 1+int(data[0])%100, 1+int(data[1])%40
		cut := int(data[2]) * len(data) / 256
		cols2, rows2 := 1+int(data[3])%100, 1+int(data[0]^data[3])%40
		data = data[4:]
		cut = min(cut, len(data))
		e, answers := newTest(t, cols, rows, 20)
		check := func(part []byte, cols, rows int) {
			t.Helper()
			for len(part) > 0 {
				n := min(len(part), 1+int(part[0])%17)
				e.Write(part[:n])
				part = part[n:]
			}
			checkInvariants(t, screenOf(e))
			checkSnapshot(t, e)
		}
		b0 := e.steps()
		check(data[:cut], cols, rows)
		if got, limit := e.steps()-b0, workBudget(cut, cols, rows); got > limit {
			t.Fatalf("%d steps for %d bytes at %dx%d, budget %d", got, cut, cols, rows, limit)
		}
		e.Resize(cols2, rows2, 0, 0)
		checkInvariants(t, screenOf(e))
		b1 := e.steps()
		check(data[cut:], cols2, rows2)
		if got, limit := e.steps()-b1, workBudget(len(data)-cut, cols2, rows2); got > limit {
			t.Fatalf("%d steps for %d bytes at %dx%d, budget %d", got, len(data)-cut, cols2, rows2, limit)
		}
		whole, wholeAnswers := newTest(t, cols, rows, 20)
		whole.Write(data[:cut])
		whole.Resize(cols2, rows2, 0, 0)
		whole.Write(data[cut:])
		if !reflect.DeepEqual(screenOf(whole), screenOf(e)) || !reflect.DeepEqual(*wholeAnswers, *answers) {
			t.Fatalf("chunked writes give another screen or answers than whole ones")
		}
	})
}

// workBudget is the bound the fuzz target enforces: per byte, at most
// twice (cols + rows + 64) steps, amortized over the input. Rows enter
// because a scroll inside a region rotates row headers; every count is
// clamped and every whole-line clear is O(1), so nothing costs rows×cols.
func workBudget(n, cols, rows int) uint64 {
	return uint64(n+1) * uint64(cols+rows+64) * 2
}

var fuzzSeeds = []string{
	"\x50\x18\x80\x28hello\r\nworld\x1b[31mred\x1b[0m\x1b[2J\x1b[H",
	"\x10\x05\x40\x08\x1b[?1049h\x1b[2;3r\x1b[5S\x1b[3L\x1b[2M\x1b[?1049l",
	"\x20\x08\x20\x20世界👨\u200d👩e\u0301\x1b[3@\x1b[2P\x1b[4X\x1b[999b",
	"\x30\x10\x10\x30\x1b]0;title\x07\x1b]11;?\x1b\\\x1bP$qm\x1b\\\x1bP+q544e\x1b\\\x1b[c\x1b[6n",
	"\x08\x03\x70\x10\x1b(0lqqk\x0e\x1b)0x\x0f\x1b#8\x1b[?7l0123456789\x1b[?6h\x1b[99;99H",
	"\x40\x20\x90\x20\x9b31m\xc2\x9b2J\xe2\x82\x1b[38:2::1:2:3m\x1b[4:3m\x1b[58;5;3m",
	"\x14\x04\x30\x10A\x9b2JB\x1b[2éJB\x1b[1;31世mC\x9d2;t\xc2\x9cÜ\x85\xe0\x9b6n\x90$qm\x9c",
}

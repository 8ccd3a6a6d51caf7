package engine

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/streamgen"
	"github.com/ptyhost/ptyhost/internal/term"
)

// checkSnapshot checks that AppendSnapshot encodes exactly what Screen
// extracts, into a buffer with and without room, after a prefix it keeps.
func checkSnapshot(tb testing.TB, e *Engine) {
	tb.Helper()
	s := screenOf(e)
	s.Epoch, s.Echo = 7, attachwire.EchoOn
	snap, err := attachwire.NewSnapshot(42, s)
	if err != nil {
		tb.Fatalf("Screen does not encode: %v", err)
	}
	want, _ := attachwire.AppendSnapshot([]byte("keep"), snap)
	for _, spare := range []int{0, len(want)} {
		dst := append(make([]byte, 0, 4+spare), "keep"...)
		got, err := e.AppendSnapshot(dst, 42, 7, attachwire.EchoOn)
		if err != nil || !bytes.Equal(got, want) {
			tb.Fatalf("AppendSnapshot (spare %d) = %d bytes, %v; want the %d bytes of Screen's encoding", spare, len(got), err, len(want))
		}
	}
}

// TestAppendSnapshotMatchesScreen runs random streams at several sizes,
// with scrollback shorter and longer than the raw lines (so encoded lines
// are covered), through resizes, checking the snapshot after each step.
func TestAppendSnapshotMatchesScreen(t *testing.T) {
	for _, tc := range []struct {
		cols, rows, scrollback int
	}{
		{80, 24, 0},
		{40, 10, 200},
		{17, 5, rawLines + 50},
		{120, 40, 200},
	} {
		t.Run(fmt.Sprintf("%dx%d+%d", tc.cols, tc.rows, tc.scrollback), func(t *testing.T) {
			e, _ := newTest(t, tc.cols, tc.rows, tc.scrollback)
			checkSnapshot(t, e)
			for seed := range uint64(6) {
				e.Write(genSequences(seed, 600, tc.cols, tc.rows))
				checkSnapshot(t, e)
				e.Write(streamgen.Mixed(seed, 16<<10))
				checkSnapshot(t, e)
				if seed == 3 {
					e.Resize(tc.cols/2+1, tc.rows+3, 0, 0)
					checkSnapshot(t, e)
				}
			}
			e.Write([]byte("\x1b[?1049h\x1b[44mALT\x1b[K\x1b[m"))
			checkSnapshot(t, e)
		})
	}
}

// TestAppendSnapshotScrollbackKinds covers every kind of cell in both
// kinds of scrollback line (see TestScrollbackMatchesScreen).
func TestAppendSnapshotScrollbackKinds(t *testing.T) {
	e, _ := newTest(t, 12, 2, rawLines+40)
	for k := range rawLines + 60 {
		switch k % 4 {
		case 0:
			fmt.Fprintf(writerFunc(e.Write), "\x1b[3%dm%d世e\u0301\x1b[4%dm\x1b[K\x1b[m", k%8, k, (k+1)%8)
		case 1:
			fmt.Fprintf(writerFunc(e.Write), "\x1b[1;38;2;%d;2;3m%d👩\u200d💻\x1b[m", k%256, k)
		case 2:
			fmt.Fprintf(writerFunc(e.Write), "\x1b#8\x1b[2;1H\x1b[44m%d\x1b[m\x1b[2K", k)
		default:
			fmt.Fprintf(writerFunc(e.Write), "%d\x1b[45m\x1b[3X\x1b[m", k)
		}
		e.Write([]byte("\r\n"))
	}
	checkSnapshot(t, e)
}

// TestAppendSnapshotNoAllocs: with room in dst, a snapshot of a full
// 120×40 screen with 200 lines of scrollback allocates nothing; from nil,
// it allocates once (the estimate holds the realistic stream).
func TestAppendSnapshotNoAllocs(t *testing.T) {
	e := New(term.Options{Cols: 120, Rows: 40, Scrollback: 200})
	e.Write(streamgen.Mixed(1, 1<<20))
	dst, err := e.AppendSnapshot(nil, 1, 0, attachwire.EchoOn)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() { dst, _ = e.AppendSnapshot(dst[:0], 1, 0, attachwire.EchoOn) }); n != 0 {
		t.Errorf("%v allocations into a buffer with room, want 0", n)
	}
	if n := testing.AllocsPerRun(20, func() { e.AppendSnapshot(nil, 1, 0, attachwire.EchoOn) }); n != 1 {
		t.Errorf("%v allocations from nil, want 1", n)
	}
}

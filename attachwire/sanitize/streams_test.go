package sanitize_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/x/vt"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/streamgen"
)

// newEmulator returns an 80×24 emulator whose replies to queries are
// drained, so Write never blocks, and closed when the test ends.
func newEmulator(t testing.TB) *vt.Emulator {
	t.Helper()
	emu := vt.NewEmulator(80, 24)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(io.Discard, emu)
	}()
	t.Cleanup(func() {
		// Closing the reply pipe's write end ends the drain. Emulator.Close
		// would do it too, but it sets a field Read reads without a lock.
		if c, ok := emu.InputPipe().(io.Closer); ok {
			c.Close()
		}
		<-drained
	})
	return emu
}

// screenDiff describes the first difference between two screens, or
// returns "" if every cell (text, colors, attributes, link) and the cursor
// match.
func screenDiff(a, b *vt.Emulator) string {
	for y := range a.Height() {
		for x := range a.Width() {
			ca, cb := a.CellAt(x, y), b.CellAt(x, y)
			if ca == nil || cb == nil {
				if (ca == nil) != (cb == nil) {
					return fmt.Sprintf("cell %d,%d: %v vs %v", x, y, ca, cb)
				}
				continue
			}
			if !ca.Equal(cb) {
				return fmt.Sprintf("cell %d,%d: %q %+v vs %q %+v", x, y, ca.Content, ca.Style, cb.Content, cb.Style)
			}
		}
	}
	if pa, pb := a.CursorPosition(), b.CursorPosition(); pa != pb {
		return fmt.Sprintf("cursor %v vs %v", pa, pb)
	}
	if a.IsAltScreen() != b.IsAltScreen() {
		return "alternate screen differs"
	}
	return ""
}

// TestRealStreams replays recorded output of real programs (see
// record_test.go) into two emulators, one fed the raw bytes and one the
// sanitized bytes, in 512-byte reads, and requires the same screen after
// every read: sanitizing removes queries and side effects, never visible
// content or styling. The titles the raw stream sets must reach OnTitle.
func TestRealStreams(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "streams", "*.raw"))
	if len(files) < 4 {
		t.Fatalf("found %d recorded streams, want at least 4", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var rawTitles, gotTitles []string
			plain, clean := newEmulator(t), newEmulator(t)
			plain.SetCallbacks(vt.Callbacks{Title: func(s string) { rawTitles = append(rawTitles, s) }})
			s := sanitize.New(sanitize.Options{OnTitle: func(s string) { gotTitles = append(gotTitles, s) }})
			var out []byte
			for off := 0; off < len(raw); off += 512 {
				chunk := raw[off:min(off+512, len(raw))]
				out = s.Append(out[:0], chunk)
				checkSafe(t, out)
				plain.Write(chunk)
				clean.Write(out)
				if d := screenDiff(plain, clean); d != "" {
					t.Fatalf("after %d bytes: %s\nraw screen:\n%s\nsanitized screen:\n%s", off+len(chunk), d, plain.String(), clean.String())
				}
			}
			whole := run(sanitize.Options{}, raw)
			for how, chunks := range map[string][][]byte{"bytewise": bytewise(raw), "seed1": randomChunks(raw, 1)} {
				if got := run(sanitize.Options{}, chunks...); string(got) != string(whole) {
					t.Errorf("%s output differs from whole", how)
				}
			}
			if again := run(sanitize.Options{}, whole); string(again) != string(whole) {
				t.Errorf("not idempotent")
			}
			if !equal(rawTitles, gotTitles) {
				t.Errorf("titles %q, want %q", gotTitles, rawTitles)
			}
			if blank(clean) {
				t.Errorf("final screen is blank")
			}
		})
	}
}

func blank(e *vt.Emulator) bool {
	for y := range e.Height() {
		for x := range e.Width() {
			if c := e.CellAt(x, y); c != nil && c.Content != "" && c.Content != " " {
				return false
			}
		}
	}
	return true
}

// TestGeneratedStream runs the invariants over streamgen's realistic
// output, which exercises the fast paths on long inputs: whole equals
// chunked and byte by byte, the output is safe and idempotent, and, since
// the stream holds nothing the Viewer profile strips, it passes unchanged.
func TestGeneratedStream(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		in := streamgen.Mixed(seed, 32<<10)
		in = in[:bytes.LastIndexByte(in, '\n')+1] // whole sequences only
		whole := run(sanitize.Options{}, in)
		checkSafe(t, whole)
		if !bytes.Equal(whole, in) {
			t.Errorf("seed %d: sanitizing changed a stream of allowed sequences", seed)
		}
		if got := run(sanitize.Options{}, randomChunks(in, seed)...); !bytes.Equal(got, whole) {
			t.Errorf("seed %d: output in random chunks differs from whole", seed)
		}
		head := in[:4096]
		if got := run(sanitize.Options{}, bytewise(head)...); !bytes.Equal(got, run(sanitize.Options{}, head)) {
			t.Errorf("seed %d: output byte by byte differs from whole", seed)
		}
	}
}

// TestRealStreamProfiles checks, on vim's real start-up, that the Driver
// profile keeps the input modes vim turns on and the Viewer profile strips
// them, and that neither passes vim's queries.
func TestRealStreamProfiles(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "streams", "vim.raw"))
	if err != nil {
		t.Fatal(err)
	}
	modes := []string{"\x1b[?1006;1000h", "\x1b[?1002h", "\x1b[?2004h", "\x1b[?1004h", "\x1b="}
	queries := []string{"\x1b[6n", "\x1b[>c", "\x1b]10;?", "\x1b[22;2t", "\x1b[>4;2m", "\x1bP"}
	for _, q := range append(modes, queries...) {
		if !bytes.Contains(raw, []byte(q)) {
			t.Fatalf("recording lacks %q; re-record or update the test", q)
		}
	}
	viewer := run(sanitize.Options{}, raw)
	driver := run(sanitize.Options{Profile: sanitize.Driver}, raw)
	for _, m := range modes {
		if bytes.Contains(viewer, []byte(m)) {
			t.Errorf("Viewer output holds %q", m)
		}
		if !bytes.Contains(driver, []byte(m)) {
			t.Errorf("Driver output lacks %q", m)
		}
	}
	for _, q := range queries {
		if bytes.Contains(viewer, []byte(q)) || bytes.Contains(driver, []byte(q)) {
			t.Errorf("output holds query %q", q)
		}
	}
}

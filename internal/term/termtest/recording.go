package termtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// Recording is the output of a real program (or a made-up sequence), byte
// for byte as its terminal received it, at the size it ran at. It is a
// plain value; LoadRecordings returns fresh ones to each caller.
type Recording struct {
	Name       string
	Cols, Rows int
	Data       []byte
	// Golden is tmux's screen after Data (capture-pane -p -e -N and the
	// cursor, taken when the recording was made); nil when none was saved.
	Golden *Grid
}

// File format of testdata/NAME.rec: one header line
//
//	ptyhost-recording 1 COLS ROWS\n
//
// then the raw bytes. The golden screen is testdata/NAME.golden: a line
//
//	cursor COL ROW\n
//
// then tmux's capture-pane -p -e -N output.
const (
	recMagic    = "ptyhost-recording 1 "
	recExt      = ".rec"
	goldenExt   = ".golden"
	maxRecBytes = 100 << 10
)

// EncodeRecording returns the .rec file of r.
func EncodeRecording(r Recording) []byte {
	out := fmt.Appendf(nil, "%s%d %d\n", recMagic, r.Cols, r.Rows)
	return append(out, r.Data...)
}

// DecodeRecording parses a .rec file.
func DecodeRecording(name string, file []byte) (Recording, error) {
	line, data, ok := bytes.Cut(file, []byte("\n"))
	if !ok || !bytes.HasPrefix(line, []byte(recMagic)) {
		return Recording{}, errors.New("termtest: not a recording: bad header")
	}
	r := Recording{Name: name, Data: data}
	if _, err := fmt.Sscanf(string(line[len(recMagic):]), "%d %d", &r.Cols, &r.Rows); err != nil {
		return Recording{}, fmt.Errorf("termtest: recording header: %w", err)
	}
	if r.Cols < 1 || r.Rows < 1 || r.Cols > 1000 || r.Rows > 1000 {
		return Recording{}, fmt.Errorf("termtest: recording size %dx%d out of range", r.Cols, r.Rows)
	}
	return r, nil
}

// EncodeGolden returns the .golden file for a capture and cursor.
func EncodeGolden(capture []byte, cursorCol, cursorRow int) []byte {
	return append(fmt.Appendf(nil, "cursor %d %d\n", cursorCol, cursorRow), capture...)
}

// DecodeGolden parses a .golden file for a cols×rows screen.
func DecodeGolden(cols, rows int, file []byte) (Grid, error) {
	line, capture, ok := bytes.Cut(file, []byte("\n"))
	var col, row int
	if !ok {
		return Grid{}, errors.New("termtest: golden: no cursor line")
	}
	if _, err := fmt.Sscanf(string(line), "cursor %d %d", &col, &row); err != nil {
		return Grid{}, fmt.Errorf("termtest: golden cursor line: %w", err)
	}
	g, err := ParseCapture(cols, rows, capture)
	g.SetTmuxCursor(col, row)
	return g, err
}

// Dir returns the directory holding the committed recordings.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// LoadRecordings reads every committed recording, sorted by name, with
// its golden screen. It fails the test on a malformed file and when there
// are none.
func LoadRecordings(tb testing.TB) []Recording {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(Dir(), "*"+recExt))
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(paths)
	var out []Recording
	for _, p := range paths {
		file, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(p), recExt)
		r, err := DecodeRecording(name, file)
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		golden, err := os.ReadFile(strings.TrimSuffix(p, recExt) + goldenExt)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			tb.Fatal(err)
		default:
			g, err := DecodeGolden(r.Cols, r.Rows, golden)
			if err != nil {
				tb.Fatalf("%s: %v", p, err)
			}
			r.Golden = &g
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		tb.Fatalf("termtest: no recordings in %s", Dir())
	}
	return out
}

package xvtgate_test

import (
	"errors"
	"testing"

	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/xvtgate"
)

// TestNew: New makes a terminal exactly when Built says the backend is
// linked, and otherwise fails with ErrNotBuilt.
func TestNew(t *testing.T) {
	tm, err := xvtgate.New(term.Options{Cols: 10, Rows: 3})
	switch {
	case xvtgate.Built && err != nil:
		t.Fatalf("built with %s: New: %v", xvtgate.Tag, err)
	case xvtgate.Built:
		tm.Write([]byte("hi"))
		if err := tm.Close(); err != nil {
			t.Fatal(err)
		}
	case !errors.Is(err, xvtgate.ErrNotBuilt) || tm != nil:
		t.Fatalf("built without %s: New = %v, %v; want nil, ErrNotBuilt", xvtgate.Tag, tm, err)
	}
}

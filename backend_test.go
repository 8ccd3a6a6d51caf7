package ptyhost

import (
	"errors"
	"testing"
)

func TestParseBackend(t *testing.T) {
	for _, b := range []Backend{BackendDefault, BackendXVT, BackendEngine} {
		if got, err := ParseBackend(b.String()); err != nil || got != b {
			t.Errorf("ParseBackend(%q) = %v, %v", b.String(), got, err)
		}
	}
	if _, err := ParseBackend("vt100"); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("ParseBackend(vt100) = %v, want ErrInvalidSpec", err)
	}
}

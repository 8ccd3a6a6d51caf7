package cast

import (
	"errors"
	"io"
	"math"
	"strconv"
)

// Convert copies the cast src reads to dst as a cast of the given version
// (2 or 3), event for event at the same µs times. What the target has no
// place for is left out: a v2 cast gets no exit event and no comments
// (comments are never copied: they belong to the file they were in). The
// terminal type moves between v3's term.type and v2's env TERM.
func Convert(dst io.Writer, src io.Reader, version int) error {
	r, err := NewReader(src)
	if err != nil {
		return err
	}
	h := r.Header()
	if version == 3 && h.TermType == "" {
		h.TermType = h.Env["TERM"]
	}
	if version != 3 && h.TermType != "" && h.Env["TERM"] == "" {
		env := map[string]string{"TERM": h.TermType}
		for k, v := range h.Env {
			env[k] = v
		}
		h.Env = env
	}
	h.Version = version
	w, err := NewWriter(dst, h)
	if err != nil {
		return err
	}
	var t uint64
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return w.Flush()
		}
		if err != nil {
			return err
		}
		t = uint64(math.Round(ev.Time * 1e6))
		switch {
		case ev.Code == CodeExit && !w.v3:
			continue
		case ev.Code == CodeExit:
			if _, err := strconv.Atoi(ev.Data); err != nil {
				return &Error{Line: r.line, Reason: "exit event's status is not an integer"}
			}
		}
		if err := w.event(t, ev.Code, []byte(ev.Data)); err != nil {
			return err
		}
	}
}

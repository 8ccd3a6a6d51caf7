package web_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// relayTraffic sees what reaches a test relay: every HTTP request (its
// method, URL, headers and body) and the relay's log, so that a test can
// show something never went to the relay; and it can alter the history's
// frames on their way to the page, as a relay or a proxy could.
type relayTraffic struct {
	mu       sync.Mutex
	requests []string
	log      bytes.Buffer
	tamper   uint64 // the seq of the history frame to alter; 0: none
}

// Write takes the relay's log.
func (t *relayTraffic) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.log.Write(p)
}

// seen returns what the relay was sent and what it logged, one request
// a line, then the log.
func (t *relayTraffic) seen() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.requests, "\n") + "\n" + t.log.String()
}

// count returns how many requests' paths end in suffix.
func (t *relayTraffic) count(suffix string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, r := range t.requests {
		if path, _, _ := strings.Cut(strings.Fields(r)[1], "?"); strings.HasSuffix(path, suffix) {
			n++
		}
	}
	return n
}

// alter makes the history's answers carry the frame at seq with one bit
// of its payload flipped (0: none).
func (t *relayTraffic) alter(seq uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tamper = seq
}

// serve records req and hands it to next, altering a history answer as
// asked.
func (t *relayTraffic) serve(tb testing.TB, w http.ResponseWriter, req *http.Request, next http.Handler) {
	var body []byte
	if req.Body != nil && req.Header.Get("Upgrade") == "" {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	t.mu.Lock()
	t.requests = append(t.requests, fmt.Sprintf("%s %s %v %q", req.Method, req.URL, req.Header, body))
	seq := t.tamper
	t.mu.Unlock()
	if seq == 0 || !strings.HasSuffix(req.URL.Path, "/history/frames") {
		next.ServeHTTP(w, req)
		return
	}
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, req)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	out := rec.Body.Bytes()
	if rec.Code == http.StatusOK {
		out = alterFrame(tb, out, seq)
	}
	w.WriteHeader(rec.Code)
	w.Write(out)
}

// alterFrame returns the frames file with the last payload byte of the
// frame at seq flipped (in a sealed frame, its tag).
func alterFrame(tb testing.TB, file []byte, seq uint64) []byte {
	r := attachwire.NewFileReader(bytes.NewReader(file))
	var out bytes.Buffer
	fw := attachwire.NewFileWriter(&out)
	for {
		f, err := r.ReadFrame()
		if err == io.EOF {
			return out.Bytes()
		}
		if err != nil {
			tb.Errorf("a history answer does not decode: %v", err)
			return file
		}
		if f.Seq == seq && len(f.Payload) > 0 {
			f.Payload = append([]byte(nil), f.Payload...)
			f.Payload[len(f.Payload)-1] ^= 1
		}
		if err := fw.WriteFrame(f); err != nil {
			tb.Errorf("re-encode a history answer: %v", err)
			return file
		}
	}
}

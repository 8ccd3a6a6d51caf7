package autotls_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/autotls"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestNewRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		cfg  autotls.Config
		want string
	}{
		{autotls.Config{CacheDir: dir}, "no domain name"},
		{autotls.Config{Domains: []string{"localhost"}, CacheDir: dir}, "single label"},
		{autotls.Config{Domains: []string{"relay.example.com"}, CacheDir: dir, DirectoryURL: "http://ca.example.com/dir"}, "no https URL"},
		{autotls.Config{Domains: []string{"relay.example.com"}, CacheDir: dir, DirectoryURL: "https:///dir"}, "no https URL"},
		{autotls.Config{Domains: []string{"relay.example.com"}, CacheDir: dir, DirectoryURL: "::"}, "no https URL"},
	} {
		if _, err := autotls.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error with %q", tc.cfg, err, tc.want)
		}
	}
}

// The cache directory holds private keys: New makes it for the relay's
// user alone.
func TestNewMakesAPrivateCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "acme")
	if _, err := autotls.New(autotls.Config{Domains: []string{"relay.example.com"}, CacheDir: dir}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("cache directory mode %v, want 0700", st.Mode().Perm())
	}
}

// The plain-HTTP listener redirects GET and HEAD to https on the relay's
// port, refuses other methods, and never redirects to a host that is not
// one of the relay's names.
func TestServeHTTPRedirects(t *testing.T) {
	m, err := autotls.New(autotls.Config{Domains: []string{"relay.example.com", "alt.example.com"}, CacheDir: t.TempDir(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.ServeHTTP(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP after its context ended: %v", err)
		}
	}()
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	ask := func(method, host, path string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+ln.Addr().String()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Location")
	}
	for _, tc := range []struct {
		method, host, path string
		port               int
		code               int
		loc                string
	}{
		{"GET", "relay.example.com", "/v1/rooms/r1?x=1", 443, 301, "https://relay.example.com/v1/rooms/r1?x=1"},
		{"HEAD", "alt.example.com:80", "/", 443, 301, "https://alt.example.com/"},
		{"GET", "relay.example.com", "/", 8443, 301, "https://relay.example.com:8443/"},
		{"GET", "evil.example.net", "/x", 443, 301, "https://relay.example.com/x"},
		{"POST", "relay.example.com", "/v1/rooms/r1", 443, 400, ""},
	} {
		m.SetHTTPSPort(tc.port)
		code, loc := ask(tc.method, tc.host, tc.path)
		if code != tc.code || loc != tc.loc {
			t.Errorf("%s http://%s%s (port %d): %d %q, want %d %q", tc.method, tc.host, tc.path, tc.port, code, loc, tc.code, tc.loc)
		}
	}
}

func TestRoomURLs(t *testing.T) {
	m, err := autotls.New(autotls.Config{Domains: []string{"relay.example.com", "alt.example.com"}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for port, want := range map[int]string{
		443:  "wss://relay.example.com/v1/rooms/ wss://alt.example.com/v1/rooms/",
		8443: "wss://relay.example.com:8443/v1/rooms/ wss://alt.example.com:8443/v1/rooms/",
	} {
		var got []string
		for _, u := range m.RoomURLs(&net.TCPAddr{IP: net.IPv4zero, Port: port}) {
			got = append(got, u.URL)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("port %d: %q, want %q", port, got, want)
		}
	}
}

package web

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"testing"
)

// bundleBudget is the most the bundle may weigh as committed, every file
// of dist counted: the browser viewer's 1.3 MiB, and what the features
// built on it add, each stated (web/doc.go): opening sealed rooms (the
// XChaCha20-Poly1305 and HKDF code, the sealed frames' and texts'
// opening, about 44 KB, and their history's, about 3.5 KB) and input
// proposals (their controls, panel and
// editor, about 16 KB).
const bundleBudget = 13<<20/10 + sealedRoomsBytes + proposalsBytes

const (
	sealedRoomsBytes = 48 << 10
	proposalsBytes   = 20 << 10
)

// TestCommittedBundle: the bundle is in the tree, so that a binary built
// without go generate serves the page; every file but the README is
// stored gzipped at the best compression with a header that holds no
// name and no time (the same build gives the same bytes), the whole
// within bundleBudget; and every file the page names is served.
func TestCommittedBundle(t *testing.T) {
	if !Built() {
		t.Fatal("web/dist holds no bundle: run go generate ./web and commit web/dist")
	}
	var total int64
	err := fs.WalkDir(dist, "dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(dist, p)
		if err != nil {
			return err
		}
		total += int64(len(b))
		if p == "dist/README.md" {
			return nil
		}
		if !strings.HasSuffix(p, ".gz") {
			t.Errorf("%s is stored uncompressed", p)
			return nil
		}
		// RFC 1952: ID1 ID2 CM FLG MTIME(4) XFL OS.
		if len(b) < 18 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 {
			t.Errorf("%s is not a deflate gzip stream", p)
			return nil
		}
		if b[3] != 0 || b[4]|b[5]|b[6]|b[7] != 0 {
			t.Errorf("%s: gzip header flags %#x, mtime % x: want neither name nor time", p, b[3], b[4:8])
		}
		if b[8] != 2 {
			t.Errorf("%s: gzip XFL %d, want 2 (best compression)", p, b[8])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bundle as committed: %d bytes (budget %d)", total, bundleBudget)
	if total > bundleBudget {
		t.Errorf("bundle as committed is %d bytes, over the budget of %d", total, bundleBudget)
	}

	h := Handler()
	resp := get(t, h, "GET", "/v1/rooms/r1/view", nil)
	page := body(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	refs := regexp.MustCompile(`"\.\./\.\./viewer/([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 2 {
		t.Fatalf("the page names %d bundle files:\n%s", len(refs), page)
	}
	var names []string
	engine := false
	for _, m := range refs {
		names = append(names, m[1])
		engine = engine || path.Ext(m[1]) == ".wasm"
	}
	if !engine {
		t.Fatalf("the page names no engine:\n%s", page)
	}
	for _, name := range names {
		resp := get(t, h, "GET", AssetPrefix+name, nil)
		b := body(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the page's %s: %d", name, resp.StatusCode)
			continue
		}
		// Kept for good by browsers, so named for what it holds.
		sum := sha256.Sum256([]byte(b))
		ext := path.Ext(name)
		if !strings.HasSuffix(name, "."+hex.EncodeToString(sum[:8])+ext) {
			t.Errorf("%s is not named for its content (sha256 %x…)", name, sum[:8])
		}
	}
}

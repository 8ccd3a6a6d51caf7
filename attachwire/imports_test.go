package attachwire

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPureBytes: the wire packages import nothing that reaches the
// operating system (processes, signals, files): the exit and signal
// mapping lives in the root package and the Screen→ANSI renderer in
// internal/repaint, so a decoder in a browser or a relay links only bytes.
func TestPureBytes(t *testing.T) {
	forbidden := func(path string) bool {
		switch {
		case path == "os", strings.HasPrefix(path, "os/"),
			path == "syscall", path == "net", strings.HasPrefix(path, "net/"),
			strings.HasPrefix(path, "golang.org/x/sys/"),
			strings.HasPrefix(path, "github.com/ptyhost/ptyhost/internal/repaint"):
			return true
		}
		return false
	}
	var files []string
	for _, dir := range []string{".", "sanitize"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if forbidden(path) {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files: the globs no longer find the package", checked)
	}
}

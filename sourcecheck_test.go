package ptyhost

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCitationsResolve: comments in the core's packages cite the documents
// in docs/, never the design files outside the repository, and what they
// cite exists: the file, the protocol section, the invariant.
func TestCitationsResolve(t *testing.T) {
	outside := regexp.MustCompile(`\b(PROTOCOL|SANITIZER|TERMINAL|RELAY|DESIGN|STYLE)(\.md\b|\s*§)|README-cli|attach-v1-notes|donmai-notes`)
	doc := regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)(\s*§\s*([0-9]+))?`)
	invariant := regexp.MustCompile(`[Ii]nvariant ([0-9]+)`)
	protocol := readDoc(t, "protocol.md")
	invariants := readDoc(t, "invariants.md")

	for _, path := range coreGoFiles(t) {
		if path == "sourcecheck_test.go" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			where := path + ":" + strconv.Itoa(i+1)
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s cites %q, which is not in the repository: cite docs/", where, m)
			}
			for _, m := range doc.FindAllStringSubmatch(line, -1) {
				if _, err := os.Stat(filepath.Join("docs", m[1])); err != nil {
					t.Errorf("%s cites docs/%s: %v", where, m[1], err)
				}
				if m[1] == "protocol.md" && m[3] != "" && !strings.Contains(protocol, "\n## "+m[3]+". ") {
					t.Errorf("%s cites docs/protocol.md §%s, which has no such section", where, m[3])
				}
			}
			for _, m := range invariant.FindAllStringSubmatch(line, -1) {
				if !strings.Contains(invariants, "\n"+m[1]+". **") {
					t.Errorf("%s cites invariant %s, which docs/invariants.md does not have", where, m[1])
				}
			}
		}
	}
}

func readDoc(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("docs", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestNoExportedMutableVars: the core's packages export no variable a
// caller could change for every other user (attachwire.BlankCell and
// term.DefaultFg were), except error sentinels, which errors.Is compares
// by identity.
func TestNoExportedMutableVars(t *testing.T) {
	fset := token.NewFileSet()
	for _, path := range coreGoFiles(t) {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if id.IsExported() && !strings.HasPrefix(id.Name, "Err") {
						t.Errorf("%s: exported variable %s", fset.Position(id.Pos()), id.Name)
					}
				}
			}
		}
	}
}

// coreGoFiles lists the Go files of every package of the module (bench/
// is a module of its own), without test data and the web bundle's
// dependencies.
func coreGoFiles(tb testing.TB) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || path == "bench"):
			return fs.SkipDir
		case strings.HasSuffix(path, ".go"):
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) < 200 {
		tb.Fatalf("found %d files: the walk no longer finds the packages", len(files))
	}
	return files
}

// TestNoWorkHistory: the repository speaks of the project, not of how it
// was made. Its files hold no issue or work-session numbers (history is
// git log), which would otherwise creep back into comments and docs.
func TestNoWorkHistory(t *testing.T) {
	history := regexp.MustCompile(`(?i)\b(issue|session)s? #?[0-9]+\b|\bissue #`)
	text := regexp.MustCompile(`\.(go|md|ts|css|html|sh|json)$`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != "." && path != ".ci" && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" || path == "web/dist"):
			return fs.SkipDir
		case d.IsDir() || !(text.MatchString(path) || path == ".ci/run") || strings.HasSuffix(path, "-lock.json"):
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := history.FindString(line); m != "" && path != "sourcecheck_test.go" {
				t.Errorf("%s:%d speaks of %q: say what holds, and leave the history to git log", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

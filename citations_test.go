package ptyhost

import (
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

	checked := 0
	for _, root := range []string{".", "agent", "attachwire", "internal", "cmd/ptyhost"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if root == "." && path != "." {
					return fs.SkipDir // the root package alone; the rest are listed
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || path == "citations_test.go" {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			checked++
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
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d files: the walk no longer finds the packages", checked)
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

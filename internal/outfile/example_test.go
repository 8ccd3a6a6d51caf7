package outfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ptyhost/ptyhost/internal/outfile"
)

func Example() {
	dir, _ := os.MkdirTemp("", "outfile")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "report.txt")
	os.WriteFile(path, []byte("last run's report\n"), 0o644)

	// The work fails before it writes anything: the old report stays.
	f, err := outfile.Open(path, outfile.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f.Abort()
	old, _ := os.ReadFile(path)
	fmt.Print(string(old))

	// The work starts: Begin replaces the old content.
	f, _ = outfile.Open(path, outfile.Options{})
	f.Begin()
	fmt.Fprintln(f, "this run's report")
	f.Sync()
	f.Close()
	now, _ := os.ReadFile(path)
	fmt.Print(string(now))

	_, err = outfile.Open(os.DevNull, outfile.Options{})
	fmt.Println(err)
	// Output:
	// last run's report
	// this run's report
	// outfile: /dev/null is a character device, not a regular file
}

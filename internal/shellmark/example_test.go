package shellmark_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/internal/shellmark"
)

func Example() {
	var s shellmark.Scanner
	out := "\x1b]133;A\x07$ \x1b]633;E;make test\x07\x1b]133;C\x07ok\r\n\x1b]133;D;0\x07"
	// A chunk boundary may fall anywhere, even inside a sequence.
	marks := s.Scan([]byte(out[:20]), nil)
	marks = s.Scan([]byte(out[20:]), marks)
	for _, m := range marks {
		fmt.Println(m.Kind, m.Text, m.Status)
	}
	// Output:
	// 1  0
	// 3 make test 0
	// 4  0
	// 5  0
}

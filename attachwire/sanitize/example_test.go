package sanitize_test

import (
	"bytes"
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

func Example() {
	s := sanitize.New(sanitize.Options{
		OnTitle: func(title string) { fmt.Printf("title: %s\n", title) },
	})
	// Output a hostile program might write, arriving in two reads: colored
	// text, a cursor position query split by a line feed, a raw C1 device
	// attributes query, a title, and a clipboard write.
	out := s.Append(nil, []byte("\x1b[1;31mred\x1b[0m \x1b[6\nn\x9bc\x1b]2;bu"))
	out = s.Append(out, []byte("ild\x07\x1b]52;c;cm0gLXJmIH4=\x07done\n"))
	s.Flush()
	fmt.Printf("%q\n", out)

	// The same through the io.Writer adapter, in the Driver profile, which
	// also lets bracketed paste through.
	var viewer bytes.Buffer // stands in for the viewer's terminal
	w := sanitize.NewWriter(&viewer, sanitize.Options{Profile: sanitize.Driver})
	fmt.Fprintf(w, "\x1b[?2004hpaste on\x1b[>0q\n")
	fmt.Printf("%q\n", viewer.String())
	// Output:
	// title: build
	// "\x1b[1;31mred\x1b[0m \n\x1b]2;build\x1b\\done\n"
	// "\x1b[?2004hpaste on\n"
}

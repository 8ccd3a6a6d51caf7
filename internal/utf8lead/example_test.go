package utf8lead_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/internal/utf8lead"
)

func ExampleLead() {
	for _, b := range []byte{'a', 0xC3, 0xE0, 0xF4, 0xF5} {
		n, lo, hi := utf8lead.Lead(b)
		fmt.Printf("%#02x: %d bytes, second in %#02x..%#02x\n", b, n, lo, hi)
	}
	// Output:
	// 0x61: 0 bytes, second in 0x00..0x00
	// 0xc3: 2 bytes, second in 0x80..0xbf
	// 0xe0: 3 bytes, second in 0xa0..0xbf
	// 0xf4: 4 bytes, second in 0x80..0x8f
	// 0xf5: 0 bytes, second in 0x00..0x00
}

package web_test

import (
	"fmt"
	"os"

	"github.com/ptyhost/ptyhost/internal/rawterm"
	"golang.org/x/sys/unix"
)

// helperKeyHex puts its terminal in raw mode (no line editing, no signal
// keys: a Ctrl-C arrives as 0x03) and prints each read's bytes in hex,
// numbered, so a test sees exactly what the keys sent. A read of "!"
// alone turns application cursor keys on (DECCKM), "?" off.
func helperKeyHex() int {
	t, err := unix.IoctlGetTermios(0, ioctlGetTermios)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rawterm.Set(t)
	if err := unix.IoctlSetTermios(0, ioctlSetTermios, t); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Print("hex>\r\n")
	buf := make([]byte, 4096)
	for n := 1; ; n++ {
		k, err := os.Stdin.Read(buf)
		if err != nil {
			return 0
		}
		switch string(buf[:k]) {
		case "!":
			fmt.Printf("\x1b[?1h#%d app cursor on\r\n", n)
		case "?":
			fmt.Printf("\x1b[?1l#%d app cursor off\r\n", n)
		default:
			fmt.Printf("#%d %x\r\n", n, buf[:k])
		}
	}
}

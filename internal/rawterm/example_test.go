//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package rawterm_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/internal/rawterm"
	"golang.org/x/sys/unix"
)

func ExampleSet() {
	t := unix.Termios{Lflag: unix.ICANON | unix.ECHO, Oflag: unix.OPOST}
	rawterm.Set(&t)
	fmt.Println(t.Lflag&(unix.ICANON|unix.ECHO) == 0, t.Oflag&unix.OPOST == 0, t.Cc[unix.VMIN])
	// Output: true true 1
}

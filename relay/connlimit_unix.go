//go:build unix

package relay

import "syscall"

// defaultMaxConns leaves 64 of the process's file descriptors to the
// relay's other needs (NATS, logs, the listener itself), so that a flood
// of connections is refused on accept instead of failing every open.
func defaultMaxConns() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<20 {
		return 1 << 20
	}
	return max(int(rl.Cur)-64, 16)
}

//go:build unix

package sanitize_test

import (
	"syscall"
	"time"
)

// processCPU returns the user and system CPU time the process has used, so
// benchmarks can report throughput per CPU second on a shared machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

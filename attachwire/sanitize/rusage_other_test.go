//go:build !unix

package sanitize_test

import "time"

// processCPU is unavailable here; benchmarks then omit the CPU metric.
func processCPU() time.Duration { return 0 }

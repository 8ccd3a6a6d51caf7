package testkit

import (
	"os"
	"strings"
)

// LoadAverage returns the first three fields of /proc/loadavg (the 1, 5
// and 15 minute load averages), which benchmarks print beside their
// figures on a shared machine; "?" where there is none.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

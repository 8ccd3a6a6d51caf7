//go:build !unix

package relay

// defaultMaxConns is a fixed cap where the open-file limit cannot be read.
func defaultMaxConns() int { return 8192 }

package relay

import "io"

// SetRecordOpener replaces how rl opens a recording's file, so a test can
// hand it a FIFO nobody reads (a stalled disk). Call it before any room
// records.
func SetRecordOpener(rl *Relay, open func(path string) (io.WriteCloser, error)) {
	rl.rec.open = open
}

package viewer

import "github.com/ptyhost/ptyhost/web/engine"

// PendingInput returns how many Input frames wait for their ack.
func PendingInput(c *Client) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	fs, _ := c.eng.Pending(engine.MaxPendingInputs, 0)
	return len(fs)
}

package viewer

// PendingInput returns how many Input frames wait for their ack.
func PendingInput(c *Client) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.in.pending)
}

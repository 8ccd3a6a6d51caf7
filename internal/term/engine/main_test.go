package engine

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: the
// engine starts none, and the x/vt backend used for comparison must have
// stopped its own when closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

package agent_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

func TestErrRingMissIsAttachwire(t *testing.T) {
	if agent.ErrRingMiss != attachwire.ErrRingMiss {
		t.Fatal("agent.ErrRingMiss is not attachwire.ErrRingMiss")
	}
	wrapped := fmt.Errorf("subscribe: %w", attachwire.ErrRingMiss)
	if !errors.Is(wrapped, agent.ErrRingMiss) {
		t.Fatal("errors.Is does not see agent.ErrRingMiss through a wrapped attachwire error")
	}
}

package attachclient

import (
	"context"
	"encoding/base64"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// nilSession satisfies agent.InteractiveSession for the configuration
// tests, which never reach it.
type nilSession struct{}

func (nilSession) Subscribe(uint64) (agent.InteractiveSubscription, error) { panic("unused") }
func (nilSession) WriteInput([]byte) (int, error)                          { panic("unused") }
func (nilSession) Resize(int, int, int, int) (uint64, error)               { panic("unused") }
func (nilSession) EmitMarker(string) (uint64, error)                       { panic("unused") }
func (nilSession) Snapshot() (attachwire.Screen, uint64, error)            { panic("unused") }
func (nilSession) EmitSnapshot() (attachwire.Frame, error)                 { panic("unused") }
func (nilSession) AppendSnapshot([]byte) ([]byte, uint64, error)           { panic("unused") }
func (nilSession) Stop(context.Context) error                              { panic("unused") }
func (nilSession) Done() <-chan struct{}                                   { panic("unused") }
func (nilSession) Exit() (attachwire.Exit, bool)                           { panic("unused") }

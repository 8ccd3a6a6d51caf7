package agent_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

// carry is what a carrier does with any host: follow its frames from a
// seq and hand them on, recovering from a ring miss with a snapshot.
func carry(ctx context.Context, s agent.InteractiveSession, after uint64, send func(attachwire.Frame)) error {
	for {
		sub, err := s.Subscribe(after)
		if errors.Is(err, agent.ErrRingMiss) {
			snap, err := s.EmitSnapshot()
			if err != nil {
				return err
			}
			send(snap)
			if snap.Seq == 0 {
				return nil // after Exit: the snapshot is the final screen
			}
			after = snap.Seq // follow on from the snapshot
			continue
		}
		if err != nil {
			return err
		}
		for {
			f, err := sub.Next(ctx)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, agent.ErrRingMiss) {
				break
			}
			if err != nil {
				return err
			}
			send(f)
			after = f.Seq
		}
	}
}

func Example() {
	s, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{"echo", "carried"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer s.Stop(ctx)

	host := s.Agent()
	var types []string
	err = carry(ctx, host, 0, func(f attachwire.Frame) {
		name := f.Type.String()
		if len(types) == 0 || types[len(types)-1] != name {
			types = append(types, name)
		}
	})
	fmt.Println(types, err)
	// Output: [Output Exit] <nil>
}

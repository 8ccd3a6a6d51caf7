package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

// backends are the ptyhost terminal backends the harness compares, by the
// short name used in case names.
var backends = []struct {
	name string
	b    ptyhost.Backend
}{
	{"xvt", ptyhost.BackendXVT},
	{"engine", ptyhost.BackendEngine},
}

// ptyhostCases returns, for every backend and every -subs count, a case that
// spawns `cat FILE` with ptyhost and consumes the stream with that many
// subscriptions.
func ptyhostCases(cfg config, wl workload, probe *backendProbe) []*benchCase {
	var cs []*benchCase
	for _, be := range backends {
		for _, n := range cfg.subs {
			cs = append(cs, &benchCase{
				name:  fmt.Sprintf("ptyhost-%s/%d", be.name, n),
				kind:  throughputKind,
				setup: func(ctx context.Context) error { return probe.check(ctx, cfg, be.b) },
				run: func(ctx context.Context) (sample, error) {
					return ptyhostCat(ctx, cfg, wl, be.b, n)
				},
			})
		}
	}
	return cs
}

// ptyhostRoundTripCases returns a keystroke round-trip case per backend.
func ptyhostRoundTripCases(cfg config, probe *backendProbe) []*benchCase {
	var cs []*benchCase
	for _, be := range backends {
		cs = append(cs, &benchCase{
			name:  "rt/ptyhost-" + be.name,
			kind:  latencyKind,
			setup: func(ctx context.Context) error { return probe.check(ctx, cfg, be.b) },
			run: func(ctx context.Context) (sample, error) {
				return ptyhostRoundTrip(ctx, cfg, be.b)
			},
		})
	}
	return cs
}

func spec(cfg config, b ptyhost.Backend, argv ...string) ptyhost.Spec {
	return ptyhost.Spec{
		Command:    argv,
		Cols:       cfg.cols,
		Rows:       cfg.rows,
		Scrollback: cfg.scrollback,
		Backend:    b,
	}
}

// backendProbe remembers, per backend, whether ptyhost can spawn with it.
type backendProbe struct {
	done map[ptyhost.Backend]error
}

// check spawns `true` with backend b, once per backend: its error is the
// reason the backend's cases are unavailable.
func (p *backendProbe) check(ctx context.Context, cfg config, b ptyhost.Backend) error {
	if err, ok := p.done[b]; ok {
		return err
	}
	if p.done == nil {
		p.done = make(map[ptyhost.Backend]error)
	}
	s, err := ptyhost.Spawn(spec(cfg, b, "true"))
	if err == nil {
		err = stopSession(ctx, s)
	}
	p.done[b] = err
	return err
}

func stopSession(ctx context.Context, s *ptyhost.Session) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return s.Stop(ctx)
}

// ptyhostCat measures ptyhost hosting `cat FILE` with nsubs subscriptions,
// each one a goroutine that reads frames until Exit and counts the Output
// bytes. The clock runs from before Spawn until every subscription has seen
// Exit. Every subscription must have received every byte the tty produced
// (docs/invariants.md, invariant 7): a ring miss or a short count fails the case.
func ptyhostCat(ctx context.Context, cfg config, wl workload, b ptyhost.Backend, nsubs int) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cpu0 := selfCPU()
	start := time.Now()
	s, err := ptyhost.Spawn(spec(cfg, b, "cat", wl.path))
	if err != nil {
		return sample{}, fmt.Errorf("ptyhost: spawn: %w", err)
	}
	defer stopSession(context.WithoutCancel(ctx), s)
	subs := make([]agent.InteractiveSubscription, 0, nsubs)
	defer func() {
		for _, sub := range subs {
			sub.Close()
		}
	}()
	for range nsubs {
		sub, err := s.Subscribe(0)
		if err != nil {
			return sample{}, fmt.Errorf("ptyhost: subscribe: %w", err)
		}
		subs = append(subs, sub)
	}
	errs := make([]error, nsubs)
	var wg sync.WaitGroup
	for i, sub := range subs {
		wg.Go(func() { errs[i] = consume(ctx, sub, wl.ttyBytes) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := selfCPU() - cpu0
	if err := errors.Join(errs...); err != nil {
		return sample{}, err
	}
	return throughput(wl.size, elapsed, cpu), nil
}

// consume reads sub to its end and checks the Output byte count.
func consume(ctx context.Context, sub agent.InteractiveSubscription, want int) error {
	got := 0
	for {
		f, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("ptyhost: subscription: %w", err)
		}
		if f.Type == attachwire.TypeOutput {
			got += len(f.Payload)
		}
	}
	if got != want {
		return fmt.Errorf("ptyhost: subscription got %d output bytes, want %d", got, want)
	}
	return nil
}

// ptyhostRoundTrip measures keystroke latency through ptyhost: WriteInput
// of one byte to the raw echo child, until the Output frame carrying it
// comes out of a subscription.
func ptyhostRoundTrip(ctx context.Context, cfg config, b ptyhost.Backend) (sample, error) {
	argv, err := echoCommand()
	if err != nil {
		return sample{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	s, err := ptyhost.Spawn(spec(cfg, b, argv...))
	if err != nil {
		return sample{}, fmt.Errorf("round trip: spawn: %w", err)
	}
	defer stopSession(context.WithoutCancel(ctx), s)
	sub, err := s.Subscribe(0)
	if err != nil {
		return sample{}, fmt.Errorf("round trip: subscribe: %w", err)
	}
	defer sub.Close()
	var seen []byte
	for !bytes.Contains(seen, []byte(echoReady)) {
		f, err := sub.Next(ctx)
		if err != nil {
			return sample{}, fmt.Errorf("round trip: waiting for the echo child: %w", err)
		}
		if f.Type == attachwire.TypeOutput {
			seen = append(seen, f.Payload...)
		}
	}
	lat := make([]time.Duration, 0, cfg.rtIters)
	key := []byte{'x'}
	for i := 0; i < rtWarmup+cfg.rtIters; i++ {
		t0 := time.Now()
		if _, err := s.WriteInput(key); err != nil {
			return sample{}, fmt.Errorf("round trip: write: %w", err)
		}
		if err := nextOutputWith(ctx, sub, 'x'); err != nil {
			return sample{}, err
		}
		if i >= rtWarmup {
			lat = append(lat, time.Since(t0))
		}
	}
	_, _ = s.WriteInput([]byte{echoQuit})
	return latencySample(lat), nil
}

// nextOutputWith reads sub until an Output frame holding want.
func nextOutputWith(ctx context.Context, sub agent.InteractiveSubscription, want byte) error {
	for {
		f, err := sub.Next(ctx)
		if err != nil {
			return fmt.Errorf("round trip: subscription: %w", err)
		}
		if f.Type == attachwire.TypeOutput && bytes.IndexByte(f.Payload, want) >= 0 {
			return nil
		}
	}
}

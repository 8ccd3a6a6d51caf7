package main

import "context"

// kind says what a case measures and so which bare baseline it pairs with.
type kind int

const (
	throughputKind kind = iota // MiB/s of `cat FILE`; paired with bare
	latencyKind                // keystroke round trip; paired with rt/bare
)

// benchCase is one row of the table.
type benchCase struct {
	name string
	kind kind
	// setup prepares the case once, before the first round; its error is
	// the printed reason the case is unavailable. Nil means nothing to do.
	setup func(ctx context.Context) error
	// run makes one measurement.
	run func(ctx context.Context) (sample, error)
	// teardown releases what setup made. Nil means nothing to do.
	teardown func()
}

// suite is the baselines and the cases compared with them.
type suite struct {
	bare   *benchCase // throughput limit
	rtBare *benchCase // latency limit
	cases  []*benchCase
}

func buildCases(cfg config, wl workload) suite {
	s := suite{
		bare: &benchCase{name: "bare", kind: throughputKind,
			run: func(ctx context.Context) (sample, error) { return bareCat(ctx, cfg, wl) }},
		rtBare: &benchCase{name: "rt/bare", kind: latencyKind,
			run: func(ctx context.Context) (sample, error) { return bareRoundTrip(ctx, cfg) }},
	}
	probe := new(backendProbe)
	s.cases = append(s.cases, ptyhostCases(cfg, wl, probe)...)
	s.cases = append(s.cases, emulatorCases(cfg, wl)...)

	var tm *tmuxHost
	s.cases = append(s.cases, &benchCase{
		name: "tmux", kind: throughputKind,
		setup: func(context.Context) (err error) {
			tm, err = newTmuxHost()
			return err
		},
		run:      func(ctx context.Context) (sample, error) { return tm.run(ctx, cfg, wl) },
		teardown: func() { tm.kill() },
	})

	var nh *nodeHost
	s.cases = append(s.cases, &benchCase{
		name: "node-pty+xterm", kind: throughputKind,
		setup: func(ctx context.Context) (err error) {
			nh, err = newNodeHost(ctx, cfg)
			return err
		},
		run: func(ctx context.Context) (sample, error) { return nh.run(ctx, cfg, wl) },
	})

	s.cases = append(s.cases, ptyhostRoundTripCases(cfg, probe)...)
	return s
}

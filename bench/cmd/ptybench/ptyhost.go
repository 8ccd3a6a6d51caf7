package main

import "context"

// ptyhostCases returns the ptyhost throughput cases. Placeholder until the
// root package's Spawn and Subscribe land.
func ptyhostCases(cfg config, wl workload) []*benchCase { return nil }

// ptyhostRoundTripCases returns the ptyhost keystroke round-trip cases.
func ptyhostRoundTripCases(cfg config) []*benchCase { return nil }

var _ = context.Background

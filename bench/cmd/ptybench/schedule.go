package main

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// caseResult is what one row of the table is made of.
type caseResult struct {
	c           *benchCase
	unavailable string   // why the case never ran; empty if it did
	failed      error    // the run error that stopped the case, if any
	samples     []sample // one per measured round
	ratios      []sample // per round: this case ÷ its paired baseline
}

// results is the outcome of a whole schedule, in table order.
type results struct {
	bare, rtBare *caseResult
	cases        []*caseResult
}

// schedule runs cfg.warmup discarded rounds and cfg.rounds measured ones.
// In each round every runnable case runs once next to a fresh baseline of
// its kind (the median of cfg.bareReps bare runs), the pair's order
// alternating between rounds and the cases' order rotating, so slow drifts
// in machine load hit a case and its baseline alike. A case's ratio in a
// round is its value divided by its own pair's baseline.
func schedule(ctx context.Context, cfg config, s suite, log io.Writer) (results, error) {
	res := results{bare: &caseResult{c: s.bare}, rtBare: &caseResult{c: s.rtBare}}
	for _, c := range s.cases {
		if !cfg.only.MatchString(c.name) {
			continue
		}
		r := &caseResult{c: c}
		res.cases = append(res.cases, r)
		if c.setup == nil {
			continue
		}
		if err := c.setup(ctx); err != nil {
			r.unavailable = err.Error()
			fmt.Fprintf(log, "ptybench: %s unavailable: %v\n", c.name, err)
			continue
		}
		if c.teardown != nil {
			defer c.teardown()
		}
	}

	for round := -cfg.warmup; round < cfg.rounds; round++ {
		label := fmt.Sprintf("round %d/%d", round+1, cfg.rounds)
		if round < 0 {
			label = fmt.Sprintf("warm-up %d/%d", round+cfg.warmup+1, cfg.warmup)
		}
		ran := map[kind]bool{}
		active := activeCases(res.cases)
		for i := range active {
			r := active[(i+max(round, 0))%len(active)]
			base := res.bare
			if r.c.kind == latencyKind {
				base = res.rtBare
			}
			bs, cs, err := runPair(ctx, cfg, base.c, r.c, (round+i)%2 == 0)
			if err := ctx.Err(); err != nil {
				return res, err
			}
			var be baselineError
			if errors.As(err, &be) {
				return res, err
			}
			if err != nil {
				r.failed = err
				fmt.Fprintf(log, "ptybench: %s: %s failed: %v\n", label, r.c.name, err)
				continue
			}
			ran[r.c.kind] = true
			fmt.Fprintf(log, "ptybench: %s: %-18s %s   (%s %s)\n", label, r.c.name,
				formatSample(r.c.kind, cs), base.c.name, formatSample(base.c.kind, bs))
			if round >= 0 {
				r.samples = append(r.samples, cs)
				base.samples = append(base.samples, bs)
				r.ratios = append(r.ratios, ratio(cs, bs))
			}
		}
		// The baselines always get a row, even when nothing ran beside them.
		for _, base := range []*caseResult{res.bare, res.rtBare} {
			if ran[base.c.kind] {
				continue
			}
			bs, err := runBaseline(ctx, cfg, base.c)
			if err != nil {
				return res, err
			}
			if round >= 0 {
				base.samples = append(base.samples, bs)
			}
		}
	}
	return res, nil
}

func activeCases(rs []*caseResult) []*caseResult {
	var out []*caseResult
	for _, r := range rs {
		if r.unavailable == "" && r.failed == nil {
			out = append(out, r)
		}
	}
	return out
}

// runPair runs the baseline and the case next to each other, the baseline
// first when baseFirst. A baseline failure is fatal: the harness measures
// nothing without its limit.
func runPair(ctx context.Context, cfg config, base, c *benchCase, baseFirst bool) (bs, cs sample, err error) {
	if baseFirst {
		if bs, err = runBaseline(ctx, cfg, base); err != nil {
			return bs, cs, baselineError{base.name, err}
		}
	}
	if cs, err = c.run(ctx); err != nil {
		return bs, cs, err
	}
	if !baseFirst {
		if bs, err = runBaseline(ctx, cfg, base); err != nil {
			return bs, cs, baselineError{base.name, err}
		}
	}
	return bs, cs, nil
}

// baselineError is a failed baseline run: it ends the whole schedule.
type baselineError struct {
	name string
	err  error
}

func (e baselineError) Error() string { return "baseline " + e.name + ": " + e.err.Error() }
func (e baselineError) Unwrap() error { return e.err }

// runBaseline returns the median of cfg.bareReps runs of base.
func runBaseline(ctx context.Context, cfg config, base *benchCase) (sample, error) {
	ss := make([]sample, 0, cfg.bareReps)
	for range cfg.bareReps {
		s, err := base.run(ctx)
		if err != nil {
			return sample{}, err
		}
		ss = append(ss, s)
	}
	return medianSample(ss), nil
}

// ratio divides each field of s by the same field of base.
func ratio(s, base sample) sample {
	var r sample
	if base.value > 0 {
		r.value = s.value / base.value
	}
	if base.p99 > 0 {
		r.p99 = s.p99 / base.p99
	}
	if base.cpu > 0 {
		r.cpu = s.cpu / base.cpu
	}
	return r
}

func formatSample(k kind, s sample) string {
	if k == latencyKind {
		return fmt.Sprintf("p50 %.0f µs, p99 %.0f µs", s.value, s.p99)
	}
	return fmt.Sprintf("%.2f MiB/s, %.1f MiB/cpu-s", s.value, s.cpu)
}

package main

import (
	"slices"
	"time"
)

// sample is one measurement of one case.
type sample struct {
	// value is MiB/s of wall-clock time for throughput cases and the p50
	// in µs for latency cases.
	value float64
	// p99 is the p99 in µs for latency cases, 0 otherwise.
	p99 float64
	// cpu is, for throughput cases, MiB per CPU-second spent by the host
	// process (the one that reads the PTY and emulates; not `cat`). It
	// moves much less than wall time when the machine is shared.
	cpu float64
}

// latencySample summarizes one batch of round trips.
func latencySample(lat []time.Duration) sample {
	us := make([]float64, len(lat))
	for i, d := range lat {
		us[i] = float64(d) / float64(time.Microsecond)
	}
	slices.Sort(us)
	return sample{value: quantileSorted(us, 0.50), p99: quantileSorted(us, 0.99)}
}

// quantileSorted returns the q-quantile of sorted xs by the nearest-rank
// method; 0 for an empty slice.
func quantileSorted(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(q*float64(len(xs))+0.999999) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

// median returns the median of xs (the mean of the middle two for an even
// count); 0 for an empty slice. xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// medianSample takes the median of each field separately.
func medianSample(ss []sample) sample {
	return sample{
		value: median(values(ss, fieldValue)),
		p99:   median(values(ss, fieldP99)),
		cpu:   median(values(ss, fieldCPU)),
	}
}

// Field selectors for values.
func fieldValue(s sample) float64 { return s.value }
func fieldP99(s sample) float64   { return s.p99 }
func fieldCPU(s sample) float64   { return s.cpu }

// values picks one field out of every sample.
func values(ss []sample, field func(sample) float64) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = field(s)
	}
	return out
}

package main

import (
	"os"
	"testing"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"one", []float64{3}, 3},
		{"odd", []float64{5, 1, 3}, 3},
		{"even", []float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]float64(nil), tt.in...)
			if got := median(in); got != tt.want {
				t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
			}
			for i := range in {
				if in[i] != tt.in[i] {
					t.Fatalf("median modified its input: %v", in)
				}
			}
		})
	}
}

func TestQuantileSorted(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	tests := []struct {
		name string
		xs   []float64
		q    float64
		want float64
	}{
		{"empty", nil, 0.5, 0},
		{"p50 of 1..100", xs, 0.50, 50},
		{"p99 of 1..100", xs, 0.99, 99},
		{"p100 of 1..100", xs, 1, 100},
		{"p0 of 1..100", xs, 0, 1},
		{"p99 of one", []float64{7}, 0.99, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := quantileSorted(tt.xs, tt.q); got != tt.want {
				t.Errorf("quantileSorted(q=%v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}

func TestRatio(t *testing.T) {
	got := ratio(sample{value: 2, p99: 9, cpu: 1}, sample{value: 4, p99: 3})
	want := sample{value: 0.5, p99: 3}
	if got != want {
		t.Errorf("ratio = %+v, want %+v (a zero baseline field gives 0)", got, want)
	}
}

func TestProcCPU(t *testing.T) {
	// Burn a little CPU so the tick-based count is likely non-zero; the
	// test only checks parsing and monotonicity.
	before, err := procCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 50_000_000 {
		x += i
	}
	_ = x
	after, err := procCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after < before {
		t.Errorf("CPU time went back: %v then %v", before, after)
	}
	if _, err := procCPU(-1); err == nil {
		t.Error("procCPU(-1) succeeded")
	}
}

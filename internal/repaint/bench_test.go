package repaint

import "testing"

func BenchmarkAppendScreen(b *testing.B) {
	s := benchScreen()
	dst := AppendScreen(nil, s, Options{Scrollback: true})
	b.ReportAllocs()
	for b.Loop() {
		dst = AppendScreen(dst[:0], s, Options{Scrollback: true})
	}
	b.ReportMetric(float64(len(dst)), "ansi-bytes")
}

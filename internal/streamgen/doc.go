// Package streamgen generates deterministic, realistic terminal output for
// benchmarks and load tests: colored logs, progress bars redrawn with CR and
// EL, cursor-addressed status redraws, and UTF-8 text with wide glyphs and
// emoji, plus a plain-ASCII variant. The same seed and size always give the
// same bytes, so runs on different machines and backends feed identical
// input. The output holds no terminal queries: feeding it never makes an
// emulator answer.
package streamgen

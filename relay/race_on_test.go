//go:build race

package relay_test

// raceEnabled shrinks the load tests under the race detector, which slows
// them tenfold.
const raceEnabled = true

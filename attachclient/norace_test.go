//go:build !race

package attachclient_test

const raceEnabled = false

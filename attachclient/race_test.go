//go:build race

package attachclient_test

// raceEnabled scales the heavy end-to-end tests down under the race
// detector, which makes the session's emulator and the relay's sanitizer
// several times slower.
const raceEnabled = true

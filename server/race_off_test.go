//go:build !race

package server

// raceEnabled tells timing tests that the race detector slows every
// goroutine several times over.
const raceEnabled = false

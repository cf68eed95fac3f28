//go:build race

package loadclient

// raceEnabled tells the allocation tests that the race detector's
// instrumentation may allocate where the plain build does not.
const raceEnabled = true

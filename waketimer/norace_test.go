//go:build !race

package waketimer

const raceEnabled = false

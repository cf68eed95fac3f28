//go:build !linux

package waketimer

import "errors"

// newSys has no system timer to offer here: New falls back to a runtime timer.
func newSys(func()) (sysTimer, error) { return nil, errors.New("waketimer: no timerfd on this system") }

//go:build !linux

package waketimer

import (
	"errors"
	"sync/atomic"
	"time"
)

// timerfd is Linux's; elsewhere newSys fails and New falls back to a
// runtime timer, so its methods are never called.
type timerfd struct{}

func newSys() (*timerfd, error) { return nil, errors.New("waketimer: no timerfd on this system") }

func (*timerfd) arm(time.Duration)   {}
func (*timerfd) reset(time.Duration) {}
func (*timerfd) wait(*atomic.Bool)   {}
func (*timerfd) close()              {}

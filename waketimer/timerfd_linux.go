package waketimer

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// timerfd is a Linux timerfd registered in the runtime's poller, on which
// the owner's goroutine parks in wait.
type timerfd struct {
	fd       int
	file     *os.File        // owns fd; closing it ends a wait
	raw      syscall.RawConn // file's, for waiting in the poller
	deadline time.Time       // no later than the arming's expiry; owner only
	ready    func(uintptr) bool
	poked    *atomic.Bool // the Timer's, for ready
}

// newSys makes the timerfd and registers it in the poller.
func newSys() (*timerfd, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	// A non-blocking descriptor: os.NewFile registers it in the poller.
	f := os.NewFile(uintptr(fd), "waketimer")
	raw, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	t := &timerfd{fd: fd, file: f, raw: raw}
	t.ready = t.isReady
	return t, nil
}

// arm sets the timerfd to expire once after d, at once when d ≤ 0 (a raw
// system call: no wake-up of sysmon). Any goroutine: Poke arms it too.
func (t *timerfd) arm(d time.Duration) {
	d = max(d, 1) // a zero value would disarm a timerfd
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	_, _, _ = unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(t.fd), 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0)
}

// wait parks the calling goroutine in the poller until the arming's
// deadline has passed or poked is set (clearing it), or the descriptor is
// closed.
//
// The expiry count is never read: the poller's notification is edge
// triggered (each expiry is an edge, read or not), and re-arming resets
// the count. Readiness is decided without a system call: the poller's
// readiness flag is cleared as the wait begins, so ready must answer from
// what it knows, the clock and poked: an expiry before the wait began has
// its deadline in the past; a Poke before it has set poked, and one after
// it arms the timerfd at once, an edge the poller records.
func (t *timerfd) wait(poked *atomic.Bool) {
	t.poked = poked
	_ = t.raw.Read(t.ready) // an error: closed (Stop)
}

// reset arms the timerfd for the owner, d from now, and records the
// deadline: read before the arming, and on the same clock (Go's monotonic
// clock is CLOCK_MONOTONIC), it is never after the expiry.
func (t *timerfd) reset(d time.Duration) {
	t.deadline = time.Now().Add(max(d, 1))
	t.arm(d)
}

// isReady is wait's readiness test (owner's goroutine, in the poller's
// Read).
func (t *timerfd) isReady(uintptr) bool {
	if t.poked.Swap(false) {
		return true
	}
	return !time.Now().Before(t.deadline)
}

func (t *timerfd) close() { _ = t.file.Close() }

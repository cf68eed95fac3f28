package waketimer

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// timerfd is a Linux timerfd registered in the runtime's poller, waited for
// by a goroutine of its own that calls fire at each expiry.
type timerfd struct {
	fd   int
	file *os.File // owns fd; closing it wakes and ends the goroutine
}

// newSys makes the timerfd and starts its goroutine.
func newSys(fire func()) (sysTimer, error) {
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
	go wait(raw, fire)
	return &timerfd{fd: fd, file: f}, nil
}

// wait calls fire at each expiry until the descriptor is closed. The
// expiry count is read with a raw system call, not through os.File.Read,
// whose system call entry would wake the runtime's sysmon.
func wait(raw syscall.RawConn, fire func()) {
	var n uint64
	read := func(fd uintptr) bool {
		_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&n)), 8)
		return e != unix.EAGAIN
	}
	for {
		if err := raw.Read(read); err != nil {
			return // closed
		}
		fire()
	}
}

// arm sets the timerfd to expire once after d (a raw system call: no
// wake-up of sysmon). Re-arming clears an expiry not yet read.
func (t *timerfd) arm(d time.Duration) {
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	_, _, _ = unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(t.fd), 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0)
}

func (t *timerfd) close() { _ = t.file.Close() }

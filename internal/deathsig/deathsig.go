// Package deathsig starts the processes of tests that must never outlive
// the test (SIGKILL as their parent-death signal) so that they live as
// long as the test does. Linux sends the parent-death signal when the
// thread that forked the child ends, not the process; Go ends a thread
// whose goroutine exits locked to it, as the viewer's nice-19 build
// threads do (watch.lowerPriority). A browser or reference server forked
// on such a thread was killed in the middle of a test when a build
// finished. Here the fork runs on a thread locked until the test ends.
// Tests only.
package deathsig

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// OnKeptThread runs fn on an OS thread that stays locked (so Go neither
// ends it nor lends it) until tb's cleanup: a process fn forks with a
// parent-death signal receives it only when the test is over.
func OnKeptThread(tb testing.TB, fn func()) {
	tb.Helper()
	ran, release := make(chan struct{}), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		fn()
		close(ran)
		<-release
		runtime.UnlockOSThread()
	}()
	<-ran
	tb.Cleanup(func() { close(release) })
}

// Start starts cmd with SIGKILL as its parent-death signal, forked on a
// thread kept until the test ends (OnKeptThread).
func Start(tb testing.TB, cmd *exec.Cmd) error {
	tb.Helper()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	var err error
	OnKeptThread(tb, func() { err = cmd.Start() })
	return err
}

package deathsig

import (
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// endThread runs fn on a goroutine locked to a thread other than the
// main one and returns after that goroutine exited locked, which makes Go
// end the thread (the main thread Go keeps: a goroutine that lands there
// holds it while a second one does the work on another thread).
func endThread(fn func()) {
	done := make(chan struct{})
	var run func()
	run = func() {
		runtime.LockOSThread()
		if syscall.Gettid() == syscall.Getpid() {
			inner := make(chan struct{})
			go func() { defer close(inner); run() }()
			<-inner
			runtime.UnlockOSThread()
			return
		}
		fn()
	}
	go func() { defer close(done); run() }()
	<-done
}

// waitFor waits up to d for cmd; it returns the wait's error text, or ""
// when cmd still runs.
func waitFor(cmd *exec.Cmd, d time.Duration) string {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			return "exit 0"
		}
		return err.Error()
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return ""
	}
}

// TestStartSurvivesEndedThread: a child forked with a parent-death
// signal by a goroutine whose thread then ends is killed (the control:
// what killed the browser mid-test); through Start, from the same kind of
// goroutine, it lives on.
func TestStartSurvivesEndedThread(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip(err)
	}
	plain := exec.Command(sleep, "30")
	plain.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	endThread(func() {
		if err := plain.Start(); err != nil {
			t.Error(err)
		}
	})
	if plain.Process == nil {
		t.FailNow()
	}
	if got := waitFor(plain, 5*time.Second); !strings.Contains(got, "killed") {
		t.Fatalf("control: the child of an ended thread: %q, want killed", got)
	}

	kept := exec.Command(sleep, "30")
	endThread(func() {
		if err := Start(t, kept); err != nil {
			t.Error(err)
		}
	})
	if kept.Process == nil {
		t.FailNow()
	}
	if got := waitFor(kept, 500*time.Millisecond); got != "" {
		t.Fatalf("started through Start: %q, want still running", got)
	}
}

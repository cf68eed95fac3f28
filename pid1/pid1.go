// Package pid1 is the tiny init twserver becomes when it finds itself
// PID 1 (the main process of a container): it starts the real server as
// its child, forwards the stop and upgrade signals to it, reaps every
// zombie, follows the server to its new process after a live upgrade and
// exits with the server's status when the server ends for good.
//
// A container ends when its PID 1 exits. An upgrade's old process exits
// after it handed over, so the server cannot itself be PID 1: the init
// stays, and the server's processes come and go under it.
//
// How the init learns the new process: it listens on a datagram socket and
// names it in NOTIFY_SOCKET for the server, the way systemd does; the old
// process of an upgrade sends "MAINPID=<new pid>" there before it exits
// (handover.NotifyMainPID), and the new process, started by the old one, is
// reparented to the init when the old one exits. The init believes only
// the current server process (the sender's pid, SCM_CREDENTIALS). When the
// current process exits with status 0 after such a message, the init
// follows the new one; any other exit ends the init with that status
// (128+N for a process killed by signal N).
//
// The package knows nothing of the server but the path and arguments to
// start it with.
package pid1

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Forwarded are the signals the init passes on to the current server
// process: the stops (docker stop sends SIGTERM), the upgrade (SIGUSR2)
// and SIGHUP.
var Forwarded = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR2, syscall.SIGQUIT}

// NotifyWait bounds how long the init waits, after the current server
// process exited with status 0, for a "MAINPID=" it sent just before: the
// datagram is queued before the exit, so it comes at once when it was sent.
const NotifyWait = 200 * time.Millisecond

// MaxNotify bounds one notification datagram; a longer one is cut.
const MaxNotify = 256

// MaxEarlyExits bounds the exits of unknown processes the init remembers
// (a new server process that exits before the old one does is reaped as
// an unknown process first); the oldest is forgotten beyond it.
const MaxEarlyExits = 64

// NotifyEnv is the environment variable that names the notification socket.
const NotifyEnv = "NOTIFY_SOCKET"

// Options are what Run needs besides the server's command line.
type Options struct {
	// Stdin, Stdout and Stderr are the server's standard files.
	Stdin, Stdout, Stderr *os.File
	// Log receives the init's own lines (one per event); nil: Stderr.
	Log io.Writer
}

// notice is a notification from a process.
type notice struct {
	from, mainPID int
}

// Run starts path with args as the server and runs the init until the
// server ends for good; it returns the exit code for the init's process.
// It makes the calling process a child subreaper, so it also works when
// it is not PID 1 (under another init, in tests).
func Run(path string, args []string, opt Options) int {
	log := opt.Log
	if log == nil {
		log = opt.Stderr
	}
	logf := func(format string, a ...any) { fmt.Fprintf(log, "twserver init: "+format+"\n", a...) }
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		logf("cannot become the reaper of orphaned processes: %v", err)
		return 1
	}
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs, append([]os.Signal{syscall.SIGCHLD}, Forwarded...)...)
	defer signal.Stop(sigs)

	name := "@twserver-init-" + strconv.Itoa(os.Getpid())
	sock, err := listenNotify(name)
	if err != nil {
		logf("cannot open the notification socket: %v", err)
		return 1
	}
	defer sock.Close()
	notices := make(chan notice, 8)
	go readNotices(sock, notices)

	env := append(withoutEnv(os.Environ(), NotifyEnv), NotifyEnv+"="+name)
	proc, err := os.StartProcess(path, append([]string{path}, args...), &os.ProcAttr{
		Env:   env,
		Files: []*os.File{opt.Stdin, opt.Stdout, opt.Stderr},
	})
	if err != nil {
		logf("cannot start the server %s: %v", path, err)
		return 1
	}
	current := proc.Pid
	_ = proc.Release() // reaped by wait4(-1) below, with every orphan

	var (
		next     int             // the MAINPID the current process announced
		stopSig  syscall.Signal  // a stop signal forwarded (passed on again to a new process)
		early    = map[int]int{} // exit codes of unknown processes, by pid
		earlyOrd []int           // their order, for MaxEarlyExits
	)
	for {
		select {
		case n := <-notices:
			if n.from == current && n.mainPID > 0 {
				next = n.mainPID
			}
		case s := <-sigs:
			sig := s.(syscall.Signal)
			if sig != syscall.SIGCHLD {
				if sig == syscall.SIGTERM || sig == syscall.SIGINT || sig == syscall.SIGQUIT {
					stopSig = sig
				}
				_ = syscall.Kill(current, sig)
				continue
			}
			for {
				var ws syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
				code := exitCode(ws)
				if pid != current {
					early[pid] = code
					earlyOrd = append(earlyOrd, pid)
					if len(earlyOrd) > MaxEarlyExits {
						delete(early, earlyOrd[0])
						earlyOrd = earlyOrd[1:]
					}
					continue
				}
				if code == 0 && next == 0 {
					next = awaitNotice(notices, current)
				}
				if code != 0 || next == 0 {
					logf("server process %d exited with status %d; exiting", current, code)
					return code
				}
				logf("server process %d handed over to process %d", current, next)
				current, next = next, 0
				if c, ok := early[current]; ok {
					logf("server process %d had already exited with status %d; exiting", current, c)
					return c
				}
				if stopSig != 0 {
					_ = syscall.Kill(current, stopSig)
				}
			}
		}
	}
}

// awaitNotice waits at most NotifyWait for a MAINPID from pid.
func awaitNotice(notices <-chan notice, pid int) int {
	timer := time.NewTimer(NotifyWait)
	defer timer.Stop()
	for {
		select {
		case n := <-notices:
			if n.from == pid && n.mainPID > 0 {
				return n.mainPID
			}
		case <-timer.C:
			return 0
		}
	}
}

// exitCode is a process's status as a shell reports it.
func exitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// listenNotify opens the datagram socket name (abstract when it starts
// with '@') with the senders' credentials passed.
func listenNotify(name string) (*net.UnixConn, error) {
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		return nil, err
	}
	raw, err := c.SyscallConn()
	if err == nil {
		cerr := raw.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_PASSCRED, 1)
		})
		if err == nil {
			err = cerr
		}
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// readNotices reads the socket until it is closed and passes on each
// datagram's MAINPID with its sender's pid (datagrams without credentials
// or without MAINPID are dropped).
func readNotices(c *net.UnixConn, out chan<- notice) {
	buf := make([]byte, MaxNotify)
	oob := make([]byte, syscall.CmsgSpace(syscall.SizeofUcred))
	for {
		n, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
		if err != nil {
			return
		}
		from := sender(oob[:oobn])
		pid := ParseMainPID(buf[:n])
		if from > 0 && pid > 0 {
			out <- notice{from: from, mainPID: pid}
		}
	}
}

// sender is the pid in a control message's credentials, or 0.
func sender(oob []byte) int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return 0
	}
	for _, m := range msgs {
		if cred, err := syscall.ParseUnixCredentials(&m); err == nil {
			return int(cred.Pid)
		}
	}
	return 0
}

// ParseMainPID returns the value of the line "MAINPID=N" in a
// notification (lines of KEY=VALUE, as systemd's sd_notify sends them),
// or 0 when there is none or it is not a positive number.
func ParseMainPID(msg []byte) int {
	for _, line := range bytes.Split(msg, []byte("\n")) {
		v, ok := bytes.CutPrefix(line, []byte("MAINPID="))
		if !ok {
			continue
		}
		n, err := strconv.Atoi(string(v))
		if err != nil || n <= 0 {
			return 0
		}
		return n
	}
	return 0
}

// withoutEnv is env without the variable key.
func withoutEnv(env []string, key string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

//go:build linux

package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"twserver/sockio"
)

// pollerFDs returns the descriptors registered in this process's epoll
// instances (the Go runtime's poller), from /proc/self/fdinfo.
func pollerFDs(t *testing.T) map[int]bool {
	t.Helper()
	links, err := filepath.Glob("/proc/self/fd/*")
	if err != nil {
		t.Fatal(err)
	}
	fds := map[int]bool{}
	for _, l := range links {
		if target, err := os.Readlink(l); err != nil || target != "anon_inode:[eventpoll]" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + filepath.Base(l))
		if err != nil {
			continue // closed since the listing
		}
		for line := range strings.Lines(string(info)) {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "tfd:" {
				if n, err := strconv.Atoi(f[1]); err == nil {
					fds[n] = true
				}
			}
		}
	}
	return fds
}

// fileFD returns f's descriptor without changing its mode (f.Fd would make
// it blocking).
func fileFD(t *testing.T, f *os.File) int {
	t.Helper()
	raw, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	fd := -1
	if err := raw.Control(func(d uintptr) { fd = int(d) }); err != nil {
		t.Fatal(err)
	}
	return fd
}

// TestUDPSocketOutOfPoller checks that the game socket a process opens,
// and the descriptor of it kept for a live upgrade, stay out of the
// runtime's poller: a descriptor in it wakes an idle runtime thread for
// every datagram that arrives (measured at 63 clients: about ten
// epoll_pwait returns per tick). The control is the descriptor
// net.UDPConn.File makes, which the poller does watch.
func TestUDPSocketOutOfPoller(t *testing.T) {
	s := &sockets{kinds: map[string]sockio.Kind{}}
	c, ch, err := s.udp("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeAll()
	defer c.Close()
	if ch.Kind != sockio.KindPaced {
		t.Skipf("the game socket is %s here (%v): only the paced socket stays out of the poller", ch.Kind, ch.Fallback)
	}
	kept := fileFD(t, s.files[0].F)

	uc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	control, err := uc.File()
	if err != nil {
		t.Fatal(err)
	}
	defer control.Close()

	in := pollerFDs(t)
	if !in[fileFD(t, control)] {
		t.Fatalf("control: net.UDPConn.File's descriptor %d is not in the poller (%v): the check cannot see the poller", fileFD(t, control), in)
	}
	if in[kept] {
		t.Errorf("the game socket's descriptor kept for an upgrade (%d) is in the runtime's poller (%v)", kept, in)
	}
}

//go:build linux

package sockio

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPacedCloseWakesRead: Close wakes a ReadBatch waiting on an empty
// paced socket at once; ReadBatch then reports the socket closed.
func TestPacedCloseWakesRead(t *testing.T) {
	p := listenPaced(t, "127.0.0.1:0")
	ms := []Datagram{{Buf: make([]byte, recvBufSize)}}
	done := make(chan error, 1)
	go func() {
		_, err := p.ReadBatch(ms)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let it wait
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("ReadBatch after Close: %v, want net.ErrClosed", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Close woke the waiting read after %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a read waiting on the paced socket still waits 5 s after Close")
	}
}

// threads is the number of threads of this process.
func threads(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no Threads line in /proc/self/status")
	return 0
}

// TestPacedReadWaitsWithoutThread: readers waiting in ReadBatch on empty
// paced sockets park in the runtime's poller and hold no thread (a read
// blocked in the kernel holds one each, and its P until the runtime's
// sysmon takes it back, which stalled every game of a one-P process);
// each still gets its datagram, and after ReadPaced took the socket out of
// the poller, ReadBatch waits in it again.
func TestPacedReadWaitsWithoutThread(t *testing.T) {
	const readers = 32
	ps := make([]PacedConn, readers)
	for i := range ps {
		ps[i] = listenPaced(t, "127.0.0.1:0")
	}
	// Once in the poller, then out (ReadPaced), as a game's reader does
	// when it hands the reading to the loop.
	peer, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	ms0 := []Datagram{{Buf: make([]byte, 64)}}
	if _, err := peer.WriteToUDPAddrPort([]byte("first"), ps[0].LocalAddr()); err != nil {
		t.Fatal(err)
	}
	if n, err := ps[0].ReadBatch(ms0); n != 1 || err != nil {
		t.Fatalf("first ReadBatch: %d, %v", n, err)
	}
	if n, err := ps[0].ReadPaced(ms0, make([]time.Time, 1)); n != 0 || err != nil {
		t.Fatalf("ReadPaced on an empty socket: %d, %v", n, err)
	}
	before := threads(t)
	var wg sync.WaitGroup
	got := make([]string, readers)
	errs := make([]error, readers)
	for i, p := range ps {
		wg.Go(func() {
			ms := []Datagram{{Buf: make([]byte, 64)}}
			n, err := p.ReadBatch(ms)
			if n == 1 {
				got[i] = string(ms[0].Buf[:ms[0].N])
			}
			errs[i] = err
		})
	}
	time.Sleep(200 * time.Millisecond) // every reader waits
	if d := threads(t) - before; d >= readers/2 {
		t.Errorf("%d readers waiting on empty sockets took %d threads more", readers, d)
	}
	for i, p := range ps {
		if _, err := peer.WriteToUDPAddrPort([]byte("to "+strconv.Itoa(i)), p.LocalAddr()); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		for _, p := range ps {
			p.Close()
		}
		<-done
		t.Fatal("readers still waiting 5 s after their datagrams")
	}
	for i := range ps {
		if errs[i] != nil || got[i] != "to "+strconv.Itoa(i) {
			t.Errorf("reader %d: %q, %v", i, got[i], errs[i])
		}
	}
}

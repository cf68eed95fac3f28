//go:build linux

package sockio

import (
	"errors"
	"net"
	"testing"
	"time"
)

// TestPacedCloseWakesRead: Close wakes a ReadBatch blocked on an empty
// paced socket at once (its shutdown), well before the receive timeout,
// which is only a fallback; ReadBatch then reports the socket closed.
func TestPacedCloseWakesRead(t *testing.T) {
	p := listenPaced(t, "127.0.0.1:0")
	ms := []Datagram{{Buf: make([]byte, recvBufSize)}}
	done := make(chan error, 1)
	go func() {
		_, err := p.ReadBatch(ms)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let it block in the kernel
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("ReadBatch after Close: %v, want net.ErrClosed", err)
		}
		if d := time.Since(start); d > pacedReadTimeout/4 {
			t.Errorf("Close woke the blocked read after %v", d)
		}
	case <-time.After(pacedReadTimeout / 2):
		t.Fatalf("a read blocked on the paced socket still waits %v after Close", pacedReadTimeout/2)
	}
}

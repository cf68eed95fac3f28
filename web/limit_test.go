package web

import (
	"net"
	"testing"
	"time"
)

// TestLimitListener: at most n connections are open at a time, a closed
// one frees its place, Close ends a waiting Accept, and the connections
// keep their socket (a live viewer writes to it without waiting).
func TestLimitListener(t *testing.T) {
	l := newLimitListener(listenLoopback(t), 2)
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	a, b := <-accepted, <-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted beyond the bound")
	case <-time.After(100 * time.Millisecond):
	}
	if v := newViewer(a, time.Now()); v.raw == nil {
		t.Error("a limited connection has no raw write")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	_ = a.Close() // frees its place once
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("a closed connection did not free its place")
	}
	b.Close()
	l.Close()
	select {
	case _, ok := <-accepted:
		if ok {
			t.Fatal("accepted after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept outlived Close")
	}
}

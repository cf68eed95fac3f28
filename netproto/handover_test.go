package netproto

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestConnHandover: a server connection exported with vital chunks the
// client has not received, passed as JSON and imported into a fresh Conn
// (a new process), goes on: the client gets the lost chunks in order from
// the new Conn's resends, then new messages both ways, and never an error.
func TestConnHandover(t *testing.T) {
	for _, d := range []string{"0.7", "ddnet"} {
		t.Run(d, func(t *testing.T) {
			var l *link
			if d == "0.7" {
				l = newLink(t)
				l.connect()
			} else {
				l = newLink6(t)
				l.connect6(true)
			}
			l.cliGot = nil
			l.dropSC = func([]byte) bool { return true } // the old process's last packets are lost
			for i := range 3 {
				if err := l.srv.Send(l.now, []byte{0x05, byte(i)}, SendVital|SendFlush); err != nil {
					t.Fatal(err)
				}
			}
			l.pump()
			h := l.srv.Export()
			if len(h.Resend) != 3 {
				t.Fatalf("exported %d unacked chunks, want 3", len(h.Resend))
			}
			b, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			var h2 ConnHandover
			if err := json.Unmarshal(b, &h2); err != nil {
				t.Fatal(err)
			}
			var fresh Conn // the new process
			fresh.Reset()
			if err := fresh.Import(h2, l.now); err != nil {
				t.Fatal(err)
			}
			if err := fresh.Import(h2, l.now); err == nil {
				t.Fatal("a second import into an online Conn was taken")
			}
			l.srv = fresh
			l.dropSC = nil
			// the first Update resends at once, not after ResendInterval
			// (then the flush of the server's wake-up)
			l.step(10 * time.Millisecond)
			l.srv.Flush(l.now)
			l.pump()
			if got := fmt.Sprint(l.cliGot); got != "[[5 0] [5 1] [5 2]]" {
				t.Fatalf("client got %v 10 ms after the handover, want the 3 lost chunks in order", got)
			}
			if err := l.srv.Send(l.now, []byte{0x05, 9}, SendVital|SendFlush); err != nil {
				t.Fatal(err)
			}
			if err := l.cli.Send(l.now, []byte{0x07, 1}, SendVital|SendFlush); err != nil {
				t.Fatal(err)
			}
			l.srvGot = nil
			l.step(10 * time.Millisecond)
			if len(l.cliGot) != 4 || len(l.srvGot) != 1 || l.cli.State() != StateOnline || l.srv.State() != StateOnline {
				t.Fatalf("after the handover: client got %v, server got %v, states %v %v", l.cliGot, l.srvGot, l.cli.State(), l.srv.State())
			}
		})
	}
}

// TestConnHandoverRefused: Import takes only an online or pending server
// connection into an offline Conn, and bounded chunks.
func TestConnHandoverRefused(t *testing.T) {
	var c Conn
	c.Reset()
	for _, h := range []ConnHandover{
		{State: StateOffline},
		{State: StateError},
		{State: StateOnline, Resend: make([]ResendChunk, MaxResendChunks+1)},
		{State: StateOnline, Resend: []ResendChunk{{Data: make([]byte, MaxChunkSize+1)}}},
	} {
		if err := c.Import(h, 0); err == nil {
			t.Errorf("imported %v with %d chunks", h.State, len(h.Resend))
		}
		if c.State() != StateOffline {
			t.Fatalf("a refused import left the Conn %v", c.State())
		}
	}
}

package loadclient

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"twserver/netproto"
)

const (
	testCT = netproto.Token(0x11223344) // client token
	testST = netproto.Token(0xa1b2c3d4) // server token
)

// capture records the datagrams a conn sends.
type capture struct{ pkts [][]byte }

func (c *capture) send(b []byte) { c.pkts = append(c.pkts, bytes.Clone(b)) }

func (c *capture) last(t *testing.T) (netproto.PacketHeader, []byte) {
	t.Helper()
	if len(c.pkts) == 0 {
		t.Fatal("nothing sent")
	}
	h, p, err := netproto.ParsePacket(c.pkts[len(c.pkts)-1])
	if err != nil {
		t.Fatal(err)
	}
	p, err = netproto.DecodePayload(nil, h, p)
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}

func ctrlPacket(tok netproto.Token, msg byte, extra ...byte) []byte {
	return netproto.AppendPacket(nil, netproto.PacketHeader{Flags: netproto.FlagControl, Token: tok}, append([]byte{msg}, extra...))
}

// onlineConn runs the handshake and returns an online conn.
func onlineConn(t *testing.T, cp *capture) *conn {
	t.Helper()
	c := newConn(testCT, cp.send)
	c.start(0)
	h, p := cp.last(t)
	if h.Flags != netproto.FlagControl || h.Token != netproto.TokenNone || len(p) != netproto.TokenControlSize ||
		p[0] != netproto.CtrlToken || netproto.Token(binary.BigEndian.Uint32(p[1:5])) != testCT {
		t.Fatalf("token request: %+v % x", h, p[:8])
	}
	var st [4]byte
	binary.BigEndian.PutUint32(st[:], uint32(testST))
	if ev := c.feed(time.Millisecond, ctrlPacket(testCT, netproto.CtrlToken, st[:]...), nil); ev != evNone {
		t.Fatalf("token reply event %d", ev)
	}
	h, p = cp.last(t)
	if h.Token != testST || len(p) != netproto.TokenControlSize || p[0] != netproto.CtrlConnect ||
		netproto.Token(binary.BigEndian.Uint32(p[1:5])) != testCT {
		t.Fatalf("connect: %+v % x", h, p[:8])
	}
	if ev := c.feed(2*time.Millisecond, ctrlPacket(testCT, netproto.CtrlAccept), nil); ev != evAccepted {
		t.Fatalf("accept event %d", ev)
	}
	return c
}

// dataPacket builds a server data packet with the given vital sequence
// numbers (0 = non-vital), each carrying one byte = its seq.
func dataPacket(ack uint16, flags netproto.PacketFlags, seqs ...uint16) []byte {
	var payload []byte
	for _, s := range seqs {
		h := netproto.ChunkHeader{Size: 1}
		if s != 0 {
			h.Flags, h.Seq = netproto.ChunkVital, s
		}
		payload = append(netproto.AppendChunkHeader(payload, h), byte(s))
	}
	return netproto.AppendPacket(nil, netproto.PacketHeader{Flags: flags, Ack: ack, NumChunks: uint8(len(seqs)), Token: testCT}, payload)
}

func TestConnHandshakeAndOrdering(t *testing.T) {
	var cp capture
	c := onlineConn(t, &cp)
	var got []byte
	deliver := func(b []byte) { got = append(got, b...) }

	tests := []struct {
		name       string
		pkt        []byte
		want       []byte
		wantResend bool
		ack        uint16
	}{
		{"in order", dataPacket(0, 0, 1, 2, 0), []byte{1, 2, 0}, false, 2},
		{"duplicate skipped", dataPacket(0, 0, 2), nil, false, 2},
		{"gap asks for resend", dataPacket(0, 0, 4), nil, true, 2},
		{"resent fills gap", dataPacket(0, 0, 3, 4), []byte{3, 4}, false, 4},
		{"wrong token dropped", netproto.AppendPacket(nil, netproto.PacketHeader{Token: testST, NumChunks: 1}, []byte{0x40, 0x01, 0x05, 9}), nil, false, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			c.wantResend = false
			c.feed(time.Second, tt.pkt, deliver)
			if !bytes.Equal(got, tt.want) || c.wantResend != tt.wantResend || c.ack != tt.ack {
				t.Fatalf("delivered % x resend %v ack %d; want % x %v %d", got, c.wantResend, c.ack, tt.want, tt.wantResend, tt.ack)
			}
		})
	}
	if c.dropped != 1 {
		t.Fatalf("dropped %d, want 1", c.dropped)
	}
}

func TestConnVitalResend(t *testing.T) {
	var cp capture
	c := onlineConn(t, &cp)
	for i := range 3 {
		if err := c.queue(0, []byte{byte(i)}, true); err != nil {
			t.Fatal(err)
		}
	}
	c.flush(0)
	h, p := cp.last(t)
	if h.NumChunks != 3 || h.Token != testST {
		t.Fatalf("header %+v", h)
	}
	var rd netproto.ChunkReader
	rd.Reset(p, 3)
	for want := uint16(1); want <= 3; want++ {
		ch, ok := rd.Next()
		if !ok || ch.Flags != netproto.ChunkVital || ch.Seq != want {
			t.Fatalf("chunk %d: %+v %v", want, ch, ok)
		}
	}
	// server acks 2: one chunk stays
	c.feed(100*time.Millisecond, dataPacket(2, 0), nil)
	if c.rN != 1 || c.resend[c.rHead].seq != 3 {
		t.Fatalf("resend buffer %d entries", c.rN)
	}
	// resend after 1 s
	n := len(cp.pkts)
	if err := c.update(1100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	c.flush(1100 * time.Millisecond)
	if len(cp.pkts) != n+1 {
		t.Fatal("no resend")
	}
	h, p = cp.last(t)
	rd.Reset(p, int(h.NumChunks))
	ch, ok := rd.Next()
	if !ok || ch.Seq != 3 || ch.Flags != netproto.ChunkVital|netproto.ChunkResend {
		t.Fatalf("resent %+v", ch)
	}
	// RESEND flag from the server resends everything at once
	c.feed(1200*time.Millisecond, dataPacket(2, netproto.FlagResend), nil)
	c.flush(1200 * time.Millisecond)
	h, _ = cp.last(t)
	if h.NumChunks != 1 {
		t.Fatalf("resend-all sent %d chunks", h.NumChunks)
	}
	// never acked: the connection gives up after 10 s
	c.lastRecv = 10 * time.Second
	if err := c.update(10*time.Second + time.Millisecond); !errors.Is(err, errWeak) {
		t.Fatalf("update: %v, want errWeak", err)
	}
}

func TestConnTimers(t *testing.T) {
	t.Run("token retries then times out", func(t *testing.T) {
		var cp capture
		c := newConn(testCT, cp.send)
		c.start(0)
		for ms := 100; ms <= 5000; ms += 100 {
			if err := c.update(time.Duration(ms) * time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
		if len(cp.pkts) != 11 {
			t.Fatalf("%d token requests in 5 s, want 11", len(cp.pkts))
		}
		if err := c.update(5100 * time.Millisecond); !errors.Is(err, errTokenTimeout) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("keepalive and timeout", func(t *testing.T) {
		var cp capture
		c := onlineConn(t, &cp)
		n := len(cp.pkts)
		c.update(1100 * time.Millisecond)
		if len(cp.pkts) != n+1 {
			t.Fatal("no keepalive after 1 s idle")
		}
		if _, p := cp.last(t); p[0] != netproto.CtrlKeepAlive {
			t.Fatalf("sent % x", p)
		}
		if err := c.update(10*time.Second + 3*time.Millisecond); !errors.Is(err, errTimeout) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("close from server", func(t *testing.T) {
		var cp capture
		c := onlineConn(t, &cp)
		if ev := c.feed(time.Second, ctrlPacket(testCT, netproto.CtrlClose, []byte("This server is full\x00")...), nil); ev != evClosed {
			t.Fatalf("event %d", ev)
		}
		if c.closeMsg != "This server is full" {
			t.Fatalf("reason %q", c.closeMsg)
		}
	})
}

func TestInBackroom(t *testing.T) {
	tests := []struct {
		seq, ack uint16
		want     bool
	}{
		{5, 5, true}, {6, 5, false}, {0, 5, true}, {1000, 5, true}, {516, 5, false}, {517, 5, true},
		{600, 600, true}, {88, 600, true}, {87, 600, false}, {601, 600, false},
	}
	for _, tt := range tests {
		if got := inBackroom(tt.seq, tt.ack); got != tt.want {
			t.Errorf("inBackroom(%d, %d) = %v", tt.seq, tt.ack, got)
		}
	}
}

func TestSanitizeReason(t *testing.T) {
	if got := sanitizeReason([]byte("a\x01b\xc3\x00junk")); got != "a bC" {
		t.Fatalf("got %q", got)
	}
}

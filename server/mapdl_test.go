package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"
	"twserver/mapdl"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/internal/bigmap"
	"twserver/netproto"
	"twserver/session"
	"twserver/sockio"
)

// TestMapDownloadWindow drives sendMapData and probeHandshake on a
// connecting slot with the 2 MB map: the first request sends
// mapdl.MaxInFlight chunks; a tail-loss probe resends the unacknowledged ones
// once a retransmission timeout passed, with the timeout doubling while
// nothing is acknowledged; acks alone (lost requests) let the download go
// on at the tick; chunks go out twice once the connection saw loss and
// three times under heavy loss; the whole map costs at most MaxCopies times
// its chunks however many requests come; a stalled download, and a lossy
// connection after READY, is probed with the RESEND flag; copies end in
// game.
func TestMapDownloadWindow(t *testing.T) {
	data, err := bigmap.Generate()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), bigmap.Name+".map")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Map.File = file
	mc, err := sockio.NewMemNet().Listen(srvAddr)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Config: cfg, Conn: mc, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The server's clock stands still: every send, ack and request happens
	// at the same instant unless the test names another, so the timeouts
	// do not depend on how fast the test runs (it ran slow enough under
	// -race on a busy machine for a probe to be due before its time).
	s.clock = func() time.Duration { return time.Second }
	c := s.clients[0]
	c.state = session.Connecting
	c.openConn()
	c.conn.Accept(0, 1, 2)
	c.conn.Feed(0, netproto.PacketHeader{Token: 1}, nil) // round trip 0: timeout mapdl.ProbeMargin
	total := (len(data) + mapdl.ChunkSize - 1) / mapdl.ChunkSize
	// datagrams counts what the connection sent since the last call
	// (probes write theirs out between batches) and empties its outbox.
	var seen uint64
	datagrams := func() int {
		for _, ok := c.conn.Poll(nil); ok; _, ok = c.conn.Poll(nil) {
		}
		n := int(c.conn.Stats.PacketsSent - seen)
		seen = c.conn.Stats.PacketsSent
		return n
	}
	datagrams()
	ackChunks := func(n int) { // the client acknowledges the first n chunks sent
		c.conn.Feed(s.now(), netproto.PacketHeader{Token: 1, Ack: uint16(n)}, nil)
	}

	s.sendMapData(c, true)
	if c.dl.Chunk != mapdl.MaxInFlight || datagrams() != mapdl.MaxInFlight {
		t.Fatalf("first request: %d chunks sent, want %d", c.dl.Chunk, mapdl.MaxInFlight)
	}
	base := s.now()
	s.probeHandshake(c, base+time.Millisecond)
	if n := datagrams(); n != 0 {
		t.Fatalf("%d datagrams before the retransmission timeout", n)
	}
	// tail-loss probe: every unacked chunk again, once (no loss seen yet)
	s.probeHandshake(c, base+mapdl.ProbeMargin)
	if n := datagrams(); n != mapdl.MaxInFlight {
		t.Fatalf("tail-loss probe sent %d datagrams, want %d", n, mapdl.MaxInFlight)
	}
	// no ack since: the timeout doubled
	s.probeHandshake(c, base+2*mapdl.ProbeMargin)
	if n := datagrams(); n != 0 {
		t.Fatalf("second probe within the doubled timeout: %d datagrams", n)
	}
	s.probeHandshake(c, base+3*mapdl.ProbeMargin)
	if n := datagrams(); n != 2*mapdl.MaxInFlight {
		t.Fatalf("second probe: %d datagrams, want %d (two copies each)", n, 2*mapdl.MaxInFlight)
	}
	// the requests after 8 and 16 chunks are lost, the one after 24 is not
	// delivered either (a gap): its ack alone lets the tick send on
	ackChunks(24)
	s.probeHandshake(c, s.now())
	if c.dl.Chunk != 24+mapdl.MaxInFlight {
		t.Fatalf("after an ack of 24 chunks: %d sent, want %d", c.dl.Chunk, 24+mapdl.MaxInFlight)
	}
	if n := datagrams(); n != 2*24 {
		t.Fatalf("after loss: %d datagrams for 24 chunks, want twice", n)
	}
	// heavy loss: three copies
	c.dl.Probes = 3 + c.dl.Chunk/mapdl.HeavyLossChunks
	ackChunks(c.dl.Chunk)
	s.sendMapData(c, true)
	if n := datagrams(); n != 3*mapdl.MaxInFlight {
		t.Fatalf("heavy loss: %d datagrams for %d chunks, want three times", n, mapdl.MaxInFlight)
	}
	// the rest of the map with a request per window and acks; then a
	// flood of requests costs nothing more
	sent := 0
	for range 10 * total {
		ackChunks(c.dl.Chunk)
		s.sendMapData(c, true)
		sent += datagrams()
	}
	if c.dl.Chunk != total {
		t.Fatalf("%d of %d chunks sent", c.dl.Chunk, total)
	}
	if sent > netproto.MaxCopies*total {
		t.Fatalf("%d datagrams for %d chunks", sent, total)
	}
	// READY: still copies, and probed every mapdl.StallProbe
	s.sysMessage(c, netproto.NetmsgReady, nil, s.epoch)
	if c.state != session.Ready {
		t.Fatalf("state %v after READY", c.state)
	}
	datagrams()
	c.conn.Send(0, []byte{1}, netproto.SendVital|netproto.SendFlush)
	if n := datagrams(); n < 2 {
		t.Fatalf("after READY: %d datagrams for one chunk, want its copies", n)
	}
	c.conn.Feed(s.now(), netproto.PacketHeader{Token: 1, Ack: c.conn.Sequence()}, nil) // all acked: no tail-loss probe
	s.probeHandshake(c, c.dl.SentAt+mapdl.StallProbe)
	if n := datagrams(); n != 1 {
		t.Fatalf("after READY: %d probes, want 1", n)
	}
	// in game: sent once
	c.gotStartInfo = true
	s.enterGame(c)
	datagrams()
	c.conn.Send(0, []byte{1}, netproto.SendVital|netproto.SendFlush)
	if n := datagrams(); n != 1 {
		t.Fatalf("in game: %d datagrams for one chunk", n)
	}
}

// sysMessage delivers vital system message id with body from c, as the
// connection would (onMessage); nothing for an empty slot, which has no
// connection.
func (s *Server) sysMessage(c *client, id int32, body []byte, at time.Time) {
	if c.state == session.Empty {
		return
	}
	var p netproto.Packer
	p.AddMsgHeader(id, true)
	p.AddRaw(body)
	s.onMessage(c, netproto.Chunk{ChunkHeader: netproto.ChunkHeader{Flags: netproto.ChunkVital}, Data: p.Bytes()}, at)
}

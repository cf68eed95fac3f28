package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/internal/bigmap"
	"twserver/netproto"
)

// TestMapDownloadWindow drives sendMapData on a connecting slot with the
// 2 MB map: the first request sends its chunks plus MapLookahead, the
// unacked chunks stay within MapMaxInFlight, the chunks go out twice once
// the connection saw loss, and the whole map costs at most twice its chunks
// however many requests come; a stalled download, and a lossy connection
// after READY, is probed with the RESEND flag; redundancy ends in game.
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
	mc, err := NewMemNet().Listen(srvAddr)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Config: cfg, Conn: mc, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := s.clients[0]
	c.state = stateConnecting
	c.conn.Accept(0, 1, 2)
	c.conn.Feed(0, netproto.PacketHeader{Token: 1}, nil)
	total := (len(data) + MapChunkSize - 1) / MapChunkSize
	speed := cfg.Server.MapDownloadSpeed
	datagrams := func() int {
		n := 0
		for _, ok := c.conn.Poll(nil); ok; _, ok = c.conn.Poll(nil) {
			n++
		}
		return n
	}
	datagrams()
	ack := func() { c.conn.Feed(0, netproto.PacketHeader{Token: 1, Ack: c.conn.Sequence()}, nil) }

	s.sendMapData(c)
	if c.mapChunk != speed+MapLookahead || datagrams() != speed+MapLookahead {
		t.Fatalf("first request: %d chunks sent, want %d", c.mapChunk, speed+MapLookahead)
	}
	// no request for MapStallProbe: one RESEND probe
	s.probeHandshake(c, c.mapSentAt+MapStallProbe-1)
	if n := datagrams(); n != 0 {
		t.Fatalf("probe before MapStallProbe: %d datagrams", n)
	}
	s.probeHandshake(c, c.mapSentAt+MapStallProbe)
	if p, ok := c.conn.Poll(nil); !ok {
		t.Fatal("no probe after MapStallProbe")
	} else if h, _, err := netproto.ParsePacket(p); err != nil || h.Flags&netproto.FlagResend == 0 {
		t.Fatalf("probe %+v %v: want the RESEND flag", h, err)
	}
	// no ack: the next request sends only what it asks for beyond the
	// lookahead already sent, within MapMaxInFlight
	s.sendMapData(c)
	if c.conn.Unacked() > MapMaxInFlight+speed {
		t.Fatalf("%d chunks unacked", c.conn.Unacked())
	}
	ack()
	datagrams()
	sentClean := c.mapChunk
	// a gap seen on the connection: from now on every chunk goes twice
	c.conn.Stats.Gaps++
	s.sendMapData(c)
	if n, chunks := datagrams(), c.mapChunk-sentClean; chunks == 0 || n != 2*chunks {
		t.Fatalf("after loss: %d datagrams for %d chunks, want twice", n, chunks)
	}
	// the rest of the map with a request per window and acks; then a
	// flood of requests costs nothing more
	sent := 0
	for range 10 * total {
		ack()
		s.sendMapData(c)
		sent += datagrams()
	}
	if c.mapChunk != total {
		t.Fatalf("%d of %d chunks sent", c.mapChunk, total)
	}
	if sent > 2*total {
		t.Fatalf("%d datagrams for %d chunks", sent, total)
	}
	// READY: still redundant, and probed every MapStallProbe
	s.onSystemMessage(c, netproto.NetmsgReady, nil, true, s.epoch)
	if c.state != stateReady {
		t.Fatalf("state %v after READY", c.state)
	}
	datagrams()
	c.conn.Send(0, []byte{1}, netproto.SendVital|netproto.SendFlush)
	if n := datagrams(); n != 2 {
		t.Fatalf("after READY: %d datagrams for one chunk, want 2", n)
	}
	s.probeHandshake(c, c.mapSentAt+MapStallProbe)
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

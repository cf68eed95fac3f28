package loadclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
)

// fakeServer is a minimal single-purpose 0.7 server for tests: it serves a
// small map in small chunks, walks clients through the connect sequence and
// sends delta snapshots every second tick. It assumes a lossless loopback
// and keeps no resend buffer.
type fakeServer struct {
	t        *testing.T
	sock     *net.UDPConn
	mapData  []byte
	corrupt  int // every corrupt-th snapshot carries a wrong CRC (0: never)
	bigItems int // extra items to make snapshots span several parts
	// changeAfter, when > 0, switches every client to a second map after
	// that many snapshots (once).
	changeAfter int
	// restartTicks makes that map change start the client's ticks again
	// near 0, as a new game does.
	restartTicks bool

	mu      sync.Mutex
	clients map[netip.AddrPort]*fakePeer
	inputs  int
}

type fakePeer struct {
	addr      netip.AddrPort
	token     netproto.Token
	seq, ack  uint16
	chunks    []byte
	nchunks   int
	mapChunk  int
	ingame    bool
	ackTick   int32
	tickBase  int32 // subtracted from the ticks sent (restartTicks)
	store     snap.Storage
	enc       snap.Encoder
	snapCount int
	changed   bool
}

const (
	fakeST       = netproto.Token(0x5eedf00d)
	fakeMapChunk = 100
	fakeMapCPR   = 3
)

func newFakeServer(t *testing.T) *fakeServer {
	sock, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	m := make([]byte, 1050) // 11 chunks of 100 bytes: 4 requests of 3
	for i := range m {
		m[i] = byte(r.Uint32())
	}
	return &fakeServer{t: t, sock: sock, mapData: m, clients: map[netip.AddrPort]*fakePeer{}}
}

func (s *fakeServer) addr() netip.AddrPort { return s.sock.LocalAddr().(*net.UDPAddr).AddrPort() }

func (s *fakeServer) mapKey() MapKey { return keyOf("fakemap", s.mapData) }

func keyOf(name string, data []byte) MapKey {
	return MapKey{Name: name, CRC: crc32.ChecksumIEEE(data), Size: len(data), SHA256: sha256.Sum256(data)}
}

// mapFor returns the map a peer is on: the second map (the first one
// reversed, under another name) after a change.
func (s *fakeServer) mapFor(p *fakePeer) []byte {
	if !p.changed {
		return s.mapData
	}
	m := bytes.Clone(s.mapData[:len(s.mapData)-7])
	slices.Reverse(m)
	return m
}

func (s *fakeServer) mapKeyFor(p *fakePeer) MapKey {
	if !p.changed {
		return s.mapKey()
	}
	return keyOf("fakemap2", s.mapFor(p))
}

// serve runs until ctx is done.
func (s *fakeServer) serve(ctx context.Context) {
	buf := make([]byte, 2048)
	start := time.Now()
	tick := int32(0)
	for ctx.Err() == nil {
		next := start.Add(time.Duration(tick+1) * netproto.TickDuration)
		s.sock.SetReadDeadline(next)
		n, from, err := s.sock.ReadFromUDPAddrPort(buf)
		if err == nil {
			s.onPacket(from, buf[:n])
		}
		for time.Now().After(next) {
			tick++
			next = start.Add(time.Duration(tick+1) * netproto.TickDuration)
			if tick%2 == 0 {
				s.snapshots(tick)
			}
		}
	}
}

func (s *fakeServer) send(p *fakePeer, b []byte) { s.sock.WriteToUDPAddrPort(b, p.addr) }

func (s *fakeServer) ctrl(to netip.AddrPort, tok netproto.Token, payload []byte) {
	s.sock.WriteToUDPAddrPort(netproto.AppendPacket(nil, netproto.PacketHeader{Flags: netproto.FlagControl, Token: tok}, payload), to)
}

func (s *fakeServer) queue(p *fakePeer, msg []byte, vital bool) {
	h := netproto.ChunkHeader{Size: len(msg)}
	if vital {
		p.seq = (p.seq + 1) & netproto.SequenceMask
		h.Flags, h.Seq = netproto.ChunkVital, p.seq
	}
	if len(p.chunks)+len(msg)+3 > netproto.MaxPayload {
		s.flush(p)
	}
	p.chunks = append(netproto.AppendChunkHeader(p.chunks, h), msg...)
	p.nchunks++
}

func (s *fakeServer) flush(p *fakePeer) {
	if p.nchunks == 0 {
		return
	}
	s.send(p, netproto.AppendPacketCompressed(nil, netproto.PacketHeader{Ack: p.ack, NumChunks: uint8(p.nchunks), Token: p.token}, p.chunks))
	p.chunks, p.nchunks = p.chunks[:0], 0
}

func sysMsg(id int32, fields ...any) []byte {
	var pk netproto.Packer
	pk.AddMsgHeader(id, true)
	for _, f := range fields {
		switch v := f.(type) {
		case int:
			pk.AddInt(int32(v))
		case string:
			pk.AddString(v)
		case []byte:
			pk.AddRaw(v)
		}
	}
	return bytes.Clone(pk.Bytes())
}

func gameMsg(m gamemsg.Message) []byte {
	var pk netproto.Packer
	if err := gamemsg.Encode(&pk, m); err != nil {
		panic(err)
	}
	return bytes.Clone(pk.Bytes())
}

func (s *fakeServer) onPacket(from netip.AddrPort, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, payload, err := netproto.ParsePacket(b)
	if err != nil {
		return
	}
	payload, err = netproto.DecodePayload(nil, h, payload)
	if err != nil {
		return
	}
	p := s.clients[from]
	if h.Flags&netproto.FlagControl != 0 {
		switch {
		case payload[0] == netproto.CtrlToken && h.Token == netproto.TokenNone && len(payload) >= netproto.TokenControlSize:
			ct := netproto.Token(binary.BigEndian.Uint32(payload[1:5]))
			s.ctrl(from, ct, binary.BigEndian.AppendUint32([]byte{netproto.CtrlToken}, uint32(fakeST)))
		case payload[0] == netproto.CtrlConnect && h.Token == fakeST && p == nil:
			p = &fakePeer{addr: from, token: netproto.Token(binary.BigEndian.Uint32(payload[1:5])), ackTick: -1}
			s.clients[from] = p
			s.ctrl(from, p.token, []byte{netproto.CtrlAccept})
		case payload[0] == netproto.CtrlClose && p != nil:
			delete(s.clients, from)
		}
		return
	}
	if p == nil || h.Token != fakeST {
		return
	}
	var rd netproto.ChunkReader
	rd.Reset(payload, int(h.NumChunks))
	for {
		ch, ok := rd.Next()
		if !ok {
			break
		}
		if ch.Flags&netproto.ChunkVital != 0 {
			if ch.Seq != (p.ack+1)&netproto.SequenceMask {
				continue
			}
			p.ack = ch.Seq
		}
		s.onMessage(p, ch.Data)
	}
	s.flush(p)
}

func (s *fakeServer) onMessage(p *fakePeer, data []byte) {
	var u netproto.Unpacker
	u.Reset(data)
	id, sys := u.GetMsgHeader()
	switch {
	case sys && id == netproto.NetmsgInfo:
		if u.GetString() != NetVersion {
			return
		}
		k := s.mapKey()
		s.queue(p, sysMsg(netproto.NetmsgMapChange, k.Name, int(int32(k.CRC)), k.Size, fakeMapCPR, fakeMapChunk, k.SHA256[:]), true)
	case sys && id == netproto.NetmsgRequestMapData:
		data := s.mapFor(p)
		for range fakeMapCPR {
			off := p.mapChunk * fakeMapChunk
			if off >= len(data) {
				break
			}
			end := min(off+fakeMapChunk, len(data))
			s.queue(p, sysMsg(netproto.NetmsgMapData, data[off:end]), true)
			p.mapChunk++
		}
	case sys && id == netproto.NetmsgReady:
		s.queue(p, sysMsg(netproto.NetmsgConReady), true)
	case !sys && id == gamemsg.MsgClStartInfo:
		var si gamemsg.ClStartInfo
		if si.Decode(&u) != nil {
			return
		}
		s.queue(p, gameMsg(&gamemsg.SvMotd{Message: "fake"}), true)
		s.queue(p, gameMsg(&gamemsg.SvReadyToEnter{}), true)
	case sys && id == netproto.NetmsgEnterGame:
		p.ingame = true
		s.queue(p, gameMsg(&gamemsg.SvClientInfo{ClientID: 0, Local: true, Name: "x", Skin: gamemsg.DefaultSkin}), true)
	case sys && id == netproto.NetmsgInput:
		p.ackTick = u.GetInt()
		s.inputs++
	}
}

// snapshots sends every in-game client the snapshot of tick: a PlayerInfo
// and a Character that change every tick, plus bigItems pickups.
func (s *fakeServer) snapshots(tick int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b snap.Builder
	b.Sizes = snap.Sizes7
	for _, p := range s.clients {
		if !p.ingame {
			continue
		}
		tick := tick - p.tickBase
		b.Reset()
		pi, _ := b.NewItem(11, 0, 3)
		pi[1], pi[2] = tick/10, 7
		ch, _ := b.NewItem(10, 0, 22)
		ch[0], ch[1], ch[2] = tick, 100+tick%50, 200
		for i := range s.bigItems {
			it, _ := b.NewItem(4, uint16(i), 3)
			it[0], it[1], it[2] = int32(i)*32+tick, int32(i)*7, int32(i%8)
		}
		cur := p.store.Alloc(tick, 0)
		b.Finish(cur)
		base, baseTick := &snap.Snapshot{}, int32(-1)
		if old, _, ok := p.store.Get(p.ackTick); ok && p.ackTick >= 0 {
			base, baseTick = old, p.ackTick
		}
		if err := p.enc.Encode(snap.MsgIDs7, tick, baseTick, base, cur, snap.Sizes7); err != nil {
			s.t.Error(err)
			return
		}
		p.snapCount++
		if s.changeAfter > 0 && p.snapCount == s.changeAfter && !p.changed {
			p.changed, p.ingame, p.mapChunk, p.ackTick = true, false, 0, -1
			if s.restartTicks {
				p.tickBase += tick
			}
			p.store.PurgeAll()
			k := s.mapKeyFor(p)
			s.queue(p, sysMsg(netproto.NetmsgMapChange, k.Name, int(int32(k.CRC)), k.Size, fakeMapCPR, fakeMapChunk, k.SHA256[:]), true)
			s.flush(p)
			continue
		}
		for i := range p.enc.NumMessages() {
			msg := p.enc.Message(i)
			if s.corrupt > 0 && p.snapCount%s.corrupt == 0 && len(p.enc.Data()) > 0 && p.enc.NumMessages() == 1 {
				msg = snap.AppendSnapPart(nil, snap.MsgIDs7, tick, baseTick, cur.CRC()+1, p.enc.Data(), 0)
			}
			s.queue(p, msg, false)
			s.flush(p)
		}
	}
}

func runFake(t *testing.T, s *fakeServer, clients int, d time.Duration) Summary {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.serve(ctx); close(done) }()
	defer func() { cancel(); <-done; s.sock.Close() }()
	sum, err := Run(context.Background(), RunConfig{Server: s.addr(), Clients: clients, RampUp: 200 * time.Millisecond,
		Duration: d, Pattern: PatternRandom, Pace: PaceTick, Seed: 3, EnterTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestFakeServerClean(t *testing.T) {
	s := newFakeServer(t)
	s.bigItems = 150 // several SNAP parts for the first, full snapshot
	sum := runFake(t, s, 3, 2*time.Second)
	if !sum.OK() || sum.Connected != 3 || sum.MapDownloads < 1 || sum.Snapshots == 0 {
		t.Fatalf("summary %+v", sum)
	}
	for _, c := range sum.PerClient {
		if c.SnapParts <= c.Snapshots-c.SnapEmpty {
			t.Errorf("client %d: %d parts for %d snapshots: no multi-part snapshot seen", c.Index, c.SnapParts, c.Snapshots)
		}
		if c.Inputs < 5 || c.Latency.Count() == 0 {
			t.Errorf("client %d: %d inputs, %d latency samples", c.Index, c.Inputs, c.Latency.Count())
		}
		// one input per tick in game on an absolute schedule: never more,
		// and fewer only by those due after the driver's last wake-up (at
		// most a second's worth on a starved machine)
		if ticks := int64(c.InGame / netproto.TickDuration); c.Inputs > ticks+2 || c.Inputs < ticks-50 || c.SkippedInputs != 0 {
			t.Errorf("client %d: %d inputs (%d skipped) in %v in game, want one per tick (%d)", c.Index, c.Inputs, c.SkippedInputs, c.InGame, ticks)
		}
	}
	if sum.SnapsPerSec.Min < 5 {
		t.Errorf("snapshots/s %+v", sum.SnapsPerSec)
	}
	checkRxBreakdown(t, &sum)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inputs == 0 {
		t.Error("server saw no inputs")
	}
}

// checkRxBreakdown requires each client's traffic by kind to add up: its
// messages plus their chunk headers are its decoded payload (give or take
// the packet during which it entered the game), every in-game snapshot
// came as a message of its kind, the fake server's packets came compressed,
// its one character was counted in every snapshot, and the summary holds
// the sums.
func checkRxBreakdown(t *testing.T, sum *Summary) {
	t.Helper()
	var total RxBreakdown
	for _, c := range sum.PerClient {
		r := c.Rx
		total.add(&r)
		msgs := r.SnapSingleBytes + r.SnapSliceBytes + r.SnapEmptyBytes + r.TimingBytes + r.SysBytes + r.GameBytes
		framed := msgs + 2*r.Chunks + r.VitalChunks // 0.7 chunk headers: 2 bytes, 3 when vital
		if r.ControlPackets != 0 || framed < r.PayloadBytes || framed > r.PayloadBytes+netproto.MaxPayload {
			t.Errorf("client %d: messages %d + chunk headers = %d, decoded payload %d (%d control packets)", c.Index, msgs, framed, r.PayloadBytes, r.ControlPackets)
		}
		if parts := r.SnapSingle + r.SnapSlice + r.SnapEmpty; parts < c.Snapshots-2 {
			t.Errorf("client %d: %d snapshots in game, messages: %d single, %d slices, %d empty", c.Index, c.Snapshots, r.SnapSingle, r.SnapSlice, r.SnapEmpty)
		}
		if c.CharsInView != c.Snapshots { // the fake server's snapshots hold one character each
			t.Errorf("client %d: %d characters seen in %d snapshots", c.Index, c.CharsInView, c.Snapshots)
		}
		if r.CompressedPackets == 0 || r.PayloadBytes <= c.BytesIn {
			t.Errorf("client %d: %d compressed packets, payload %d bytes from %d on the wire", c.Index, r.CompressedPackets, r.PayloadBytes, c.BytesIn)
		}
	}
	if sum.CharsPerSnap.Min != 1 || sum.CharsPerSnap.Max != 1 {
		t.Errorf("characters per snapshot %+v, want 1", sum.CharsPerSnap)
	}
	if total != sum.Rx || sum.InGameSeconds <= 0 || sum.BytesPerSnap.Min <= 0 {
		t.Errorf("summary: breakdown %+v (clients' sum %+v), %v client seconds, bytes per snapshot %+v", sum.Rx, total, sum.InGameSeconds, sum.BytesPerSnap)
	}
}

func TestFakeServerCRCErrors(t *testing.T) {
	s := newFakeServer(t)
	s.corrupt = 5
	sum := runFake(t, s, 1, 1500*time.Millisecond)
	if sum.CRCErrors == 0 || sum.OK() {
		t.Fatalf("corrupt CRCs not detected: %+v", sum)
	}
	if sum.PerClient[0].FirstBadError == "" {
		t.Fatal("no error note")
	}
}

func TestFakeServerMapCache(t *testing.T) {
	s := newFakeServer(t)
	cache := &MapCache{}
	if err := cache.Store(s.mapKey(), s.mapData); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.serve(ctx); close(done) }()
	defer func() { cancel(); <-done; s.sock.Close() }()
	sum, err := Run(context.Background(), RunConfig{Server: s.addr(), Clients: 1, Duration: time.Second, Maps: cache})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.OK() || sum.MapDownloads != 0 {
		t.Fatalf("cached map downloaded again or run failed: %+v", sum)
	}
}

func TestFakeServerMapChange(t *testing.T) {
	s := newFakeServer(t)
	s.changeAfter = 10
	sum := runFake(t, s, 2, 2500*time.Millisecond)
	if !sum.OK() || sum.Connected != 2 {
		t.Fatalf("summary %+v", sum)
	}
	got2 := false
	for _, c := range sum.PerClient {
		if c.Stage != StageInGame || c.Snapshots < 10 {
			t.Errorf("client %d after the map change: stage %s, %d snapshots", c.Index, c.Stage, c.Snapshots)
		}
		got2 = got2 || c.MapBytes == len(s.mapData)-7
	}
	// the clients share one cache: each map is downloaded at least once
	if sum.MapDownloads < 2 || !got2 {
		t.Errorf("%d map downloads (second map seen: %v), want both maps downloaded", sum.MapDownloads, got2)
	}
	if sum.TickBacks != 0 {
		t.Errorf("%d tick backs, want 0: the fake server's ticks run on across the map change", sum.TickBacks)
	}
}

// TestTickBacks: a map change that starts the ticks again counts one tick
// back per client (the control: TestFakeServerMapChange, whose ticks run
// on, counts none).
func TestTickBacks(t *testing.T) {
	s := newFakeServer(t)
	s.changeAfter, s.restartTicks = 10, true
	sum := runFake(t, s, 2, 2500*time.Millisecond)
	if !sum.OK() || sum.Connected != 2 {
		t.Fatalf("summary %+v", sum)
	}
	for _, c := range sum.PerClient {
		if c.Stage != StageInGame || c.Snapshots < 10 {
			t.Errorf("client %d after the map change: stage %s, %d snapshots", c.Index, c.Stage, c.Snapshots)
		}
	}
	if sum.TickBacks != 2 {
		t.Errorf("%d tick backs, want 2 (one per client)", sum.TickBacks)
	}
}

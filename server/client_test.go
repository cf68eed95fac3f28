package server

import (
	"crypto/sha256"
	"hash/crc32"
	"net/netip"
	"testing"
	"time"

	"twserver/gamemsg"
	"twserver/mapdl"
	"twserver/netproto"
	"twserver/session"
	"twserver/snap"
	"twserver/sockio"
	"twserver/world"
)

// testClient is a minimal 0.7 client for tests: it runs the connection,
// downloads the map, enters the game, reconstructs snapshots and sends input.
type testClient struct {
	t     *testing.T
	name  string
	mc    *sockio.MemConn
	srv   netip.AddrPort
	conn  netproto.Conn
	start time.Time
	in    chan []byte

	password string
	infoSent bool
	version  string

	recv        *snap.Receiver
	snaps       int
	lastTick    int32
	snapErrs    int
	snapTicks   []int32
	ackOverride int32 // if non-zero, sent as the ack tick in INPUT

	mapName     string
	mapCRC      uint32
	mapSize     int
	mapSHA      [32]byte
	mapPerReq   int
	mapChunk    int
	mapData     []byte
	mapRequests int
	mapOK       bool

	conReady    bool
	readyEnter  bool
	entered     bool
	localID     int32
	chats       []gamemsg.SvChat
	clientInfos []gamemsg.SvClientInfo
	drops       []gamemsg.SvClientDrop
	gameInfos   int
	gameFlags   int32 // of the last Sv_GameInfo
	infoFirst   bool  // a client info came before the first Sv_GameInfo
	inputTiming int

	rconLines   []string
	rconOn      bool
	rconCmds    []string        // names of RCON_CMD_ADD
	rconCmdAt   []time.Duration // when each RCON_CMD_ADD arrived (tc.now)
	rconNonVit  int             // RCON_CMD_ADD that came without the vital flag
	mapList     []string        // names of MAPLIST_ENTRY_ADD
	voteOptions int
	serverNames []string          // server names of the NETMSG_SERVERINFO received
	games       []gamemsg.Message // every game message received, in order

	direction int32 // sent in INPUT once in game
	inputTick int32

	pk netproto.Packer
	up netproto.Unpacker
}

func newTestClient(t *testing.T, mn *sockio.MemNet, addr, srv netip.AddrPort, name string) *testClient {
	t.Helper()
	mc, err := mn.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	tc := &testClient{t: t, name: name, mc: mc, srv: srv, start: time.Now(), in: make(chan []byte, 4096),
		version: session.NetVersion, recv: snap.NewReceiver(snap.MsgIDs7, snap.Sizes7), localID: -1}
	go func() {
		var buf [RecvBufSize]byte
		for {
			n, _, err := mc.ReadFrom(buf[:])
			if err != nil {
				close(tc.in)
				return
			}
			select {
			case tc.in <- append([]byte(nil), buf[:n]...):
			default:
			}
		}
	}()
	t.Cleanup(func() { mc.Close() })
	return tc
}

func (tc *testClient) now() time.Duration { return time.Since(tc.start) }

func (tc *testClient) connect() {
	tc.conn.Connect(tc.now(), netproto.Token(0x11223344+len(tc.name)))
	tc.flush()
}

func (tc *testClient) flush() {
	var buf [netproto.MaxPacketSize]byte
	for {
		p, ok := tc.conn.Poll(buf[:0])
		if !ok {
			return
		}
		_, _ = tc.mc.WriteTo(p, tc.srv)
	}
}

// run processes traffic for d of (fake) time, in 10 ms steps, sending INPUT
// every tick once in game.
func (tc *testClient) run(d time.Duration) {
	end := time.Now().Add(d)
	step := time.NewTicker(10 * time.Millisecond)
	defer step.Stop()
	for time.Now().Before(end) {
		if !tc.infoSent && tc.conn.State() == netproto.StateOnline {
			tc.infoSent = true
			tc.sendSys(netproto.NetmsgInfo, netproto.SendVital|netproto.SendFlush, func(p *netproto.Packer) {
				p.AddString(tc.version)
				p.AddString(tc.password)
				p.AddInt(0x0705)
			})
			tc.flush()
		}
		select {
		case p, ok := <-tc.in:
			if !ok {
				return
			}
			tc.feed(p)
		case <-step.C:
			if tc.snaps >= 2 {
				tc.sendInput()
			}
		}
		tc.conn.Update(tc.now())
		tc.flush()
	}
}

func (tc *testClient) feed(p []byte) {
	h, payload, err := netproto.ParsePacket(p)
	if err != nil {
		return
	}
	var scratch [netproto.MaxPayload]byte
	payload, err = netproto.DecodePayload(scratch[:], h, payload)
	if err != nil {
		tc.t.Errorf("%s: bad payload from server: %v (at %v, datagram % x)", tc.name, err, tc.now(), p)
		return
	}
	if tc.conn.Feed(tc.now(), h, payload) != nil {
		return
	}
	for {
		ch, ok := tc.conn.Recv()
		if !ok {
			break
		}
		tc.onMessage(ch)
	}
}

func (tc *testClient) sendSys(id int32, flags netproto.SendFlags, fill func(p *netproto.Packer)) {
	tc.pk.Reset()
	tc.pk.AddMsgHeader(id, true)
	if fill != nil {
		fill(&tc.pk)
	}
	if err := tc.conn.Send(tc.now(), tc.pk.Bytes(), flags); err != nil && tc.conn.State() == netproto.StateOnline {
		tc.t.Errorf("%s: send: %v", tc.name, err)
	}
}

func (tc *testClient) sendGame(m gamemsg.Message) {
	tc.pk.Reset()
	if err := gamemsg.Encode(&tc.pk, m); err != nil {
		tc.t.Fatalf("encode: %v", err)
	}
	_ = tc.conn.Send(tc.now(), tc.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
}

func (tc *testClient) onMessage(ch netproto.Chunk) {
	id, system, n, err := netproto.ParseMsgHeader(ch.Data)
	if err != nil {
		tc.t.Errorf("%s: bad message header", tc.name)
		return
	}
	body := ch.Data[n:]
	tc.up.Reset(body)
	u := &tc.up
	if !system {
		m, err := gamemsg.Decode(id, u)
		if err != nil {
			tc.t.Errorf("%s: server sent a game message the client drops (id %d): %v", tc.name, id, err)
			return
		}
		tc.games = append(tc.games, m)
		switch m := m.(type) {
		case *gamemsg.SvReadyToEnter:
			tc.readyEnter = true
			tc.sendSys(netproto.NetmsgEnterGame, netproto.SendVital|netproto.SendFlush, nil)
			tc.entered = true
		case *gamemsg.SvChat:
			tc.chats = append(tc.chats, *m)
		case *gamemsg.SvClientInfo:
			tc.clientInfos = append(tc.clientInfos, *m)
			tc.infoFirst = tc.infoFirst || tc.gameInfos == 0
			if m.Local {
				tc.localID = m.ClientID
			}
		case *gamemsg.SvClientDrop:
			tc.drops = append(tc.drops, *m)
		case *gamemsg.SvGameInfo:
			tc.gameInfos++
			tc.gameFlags = m.GameFlags
		case *gamemsg.SvVoteOptionListAdd:
			tc.voteOptions += int(m.Num)
		}
		return
	}
	switch id {
	case netproto.NetmsgMapChange:
		tc.mapName = u.GetString()
		tc.mapCRC = uint32(u.GetInt())
		tc.mapSize = int(u.GetInt())
		tc.mapPerReq = int(u.GetInt())
		_ = u.GetInt() // chunk size: the client computes sizes itself
		copy(tc.mapSHA[:], u.GetRaw(32))
		if u.Err() != nil {
			tc.t.Errorf("%s: bad MAP_CHANGE: %v", tc.name, u.Err())
			return
		}
		tc.mapData, tc.mapChunk, tc.mapOK = tc.mapData[:0], 0, false
		tc.conReady, tc.readyEnter, tc.entered, tc.snaps = false, false, false, 0
		tc.recv.Reset()
		tc.mapRequests++
		tc.sendSys(netproto.NetmsgRequestMapData, netproto.SendVital|netproto.SendFlush, nil)
	case netproto.NetmsgMapData:
		want := min(mapdl.ChunkSize, tc.mapSize-len(tc.mapData))
		tc.mapData = append(tc.mapData, u.GetRaw(want)...)
		tc.mapChunk++
		if len(tc.mapData) >= tc.mapSize {
			tc.mapOK = crc32.ChecksumIEEE(tc.mapData) == tc.mapCRC && sha256.Sum256(tc.mapData) == tc.mapSHA
			if !tc.mapOK {
				tc.t.Errorf("%s: downloaded map fails CRC/SHA-256", tc.name)
			}
			tc.sendSys(netproto.NetmsgReady, netproto.SendVital|netproto.SendFlush, nil)
		} else if tc.mapChunk%tc.mapPerReq == 0 {
			tc.mapRequests++
			tc.sendSys(netproto.NetmsgRequestMapData, netproto.SendVital|netproto.SendFlush, nil)
		}
	case netproto.NetmsgConReady:
		tc.conReady = true
		var si gamemsg.ClStartInfo
		si.Name = tc.name
		si.Country = -1
		si.Skin.PartNames = [6]string{"standard", "", "", "standard", "standard", "standard"}
		tc.sendGame(&si)
	case netproto.NetmsgSnap, netproto.NetmsgSnapEmpty, netproto.NetmsgSnapSingle:
		tick, done, err := tc.recv.Handle(id, body)
		if err != nil {
			tc.snapErrs++
			tc.t.Errorf("%s: snapshot error: %v", tc.name, err)
			return
		}
		if done {
			tc.snaps++
			tc.lastTick = tick
			tc.snapTicks = append(tc.snapTicks, tick)
		}
	case netproto.NetmsgInputTiming:
		tc.inputTiming++
	case netproto.NetmsgRconLine:
		tc.rconLines = append(tc.rconLines, u.GetString())
	case netproto.NetmsgRconAuthOn:
		tc.rconOn = true
	case netproto.NetmsgRconAuthOff:
		tc.rconOn = false
	case netproto.NetmsgRconCmdAdd:
		tc.rconCmds = append(tc.rconCmds, u.GetString())
		tc.rconCmdAt = append(tc.rconCmdAt, tc.now())
		if ch.Flags&netproto.ChunkVital == 0 {
			tc.rconNonVit++
		}
	case netproto.NetmsgMaplistEntryAdd:
		tc.mapList = append(tc.mapList, u.GetString())
	case netproto.NetmsgServerInfo:
		_ = u.GetString() // version
		tc.serverNames = append(tc.serverNames, u.GetString())
	}
}

func (tc *testClient) sendInput() {
	tc.inputTick++
	ack := tc.lastTick
	if tc.ackOverride != 0 {
		ack = tc.ackOverride
	}
	tc.sendSys(netproto.NetmsgInput, netproto.SendFlush, func(p *netproto.Packer) {
		p.AddInt(ack)
		p.AddInt(ack + 1 + tc.inputTick%2)
		p.AddInt(40)
		in := [10]int32{tc.direction, 100, 0, 0, 0, 0, 0, 0, 0, 0}
		for _, v := range in {
			p.AddInt(v)
		}
		p.AddInt(0)
	})
}

func (tc *testClient) say(text string) {
	tc.sendGame(&gamemsg.ClSay{Mode: gamemsg.ChatAll, Target: -1, Message: text})
}

// charX returns the x of the client's own character, extrapolated from its
// newest snapshot to that snapshot's tick like a client does.
func (tc *testClient) charX(w *world.World) (int32, bool) {
	sn, tick := tc.recv.Latest()
	if sn == nil || tc.localID < 0 {
		return 0, false
	}
	x, _, ok := session.CharPosAt(sn, world.ObjCharacter, int(tc.localID), tick, w)
	return x, ok
}

func netipFrom(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

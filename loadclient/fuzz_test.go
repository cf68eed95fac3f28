package loadclient

import (
	"testing"
	"time"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
)

// fuzzClient returns a client in game with a silent socket side.
func fuzzClient() (*Client, *int) {
	sent := new(int)
	c := New(Config{Pattern: PatternRandom, Seed: 1})
	c.conn = newConn(testCT, func(b []byte) { *sent += len(b) })
	c.conn.state, c.conn.peerToken = stateOnline, testST
	c.recv = snap.NewReceiver(snap.MsgIDs7, snap.Sizes7)
	c.gen = NewInputGen(PatternRandom, 1)
	c.stage, c.inGame = StageInGame, true
	return c, sent
}

// FuzzClientDatagram feeds arbitrary server datagrams to an in-game client.
// Besides not panicking, the client must keep its bounds: sequence numbers
// in range, the resend buffer and map buffer bounded, and it may answer a
// datagram with at most a bounded number of bytes.
func FuzzClientDatagram(f *testing.F) {
	chunk := func(vital bool, seq uint16, msg []byte) []byte {
		h := netproto.ChunkHeader{Size: len(msg)}
		if vital {
			h.Flags, h.Seq = netproto.ChunkVital, seq
		}
		return append(netproto.AppendChunkHeader(nil, h), msg...)
	}
	pkt := func(n int, payload []byte) []byte {
		return netproto.AppendPacketCompressed(nil, netproto.PacketHeader{NumChunks: uint8(n), Token: testCT}, payload)
	}
	var pk netproto.Packer
	pk.AddMsgHeader(netproto.NetmsgMapChange, true)
	pk.AddString("fuzzmap")
	pk.AddInt(1234)
	pk.AddInt(500)
	pk.AddInt(2)
	pk.AddInt(100)
	pk.AddRaw(make([]byte, 32))
	mapChange := append([]byte(nil), pk.Bytes()...)
	pk.Reset()
	(&gamemsg.SvChat{Mode: 1, ClientID: -1, TargetID: -1, Message: "hi"}).Encode(&pk)
	chat := append([]byte(nil), pk.Bytes()...)
	snapSingle := snap.AppendSnapPart(nil, snap.MsgIDs7, 10, -1, 8, []byte{0, 1, 0, 11, 0, 8, 0, 0}, 0)
	snapEmpty := snap.AppendSnapEmpty(nil, snap.MsgIDs7, 12, 10)

	f.Add(pkt(1, chunk(false, 0, snapSingle)))
	f.Add(pkt(2, append(chunk(false, 0, snapSingle), chunk(false, 0, snapEmpty)...)))
	f.Add(pkt(1, chunk(true, 1, mapChange)))
	f.Add(pkt(2, append(chunk(true, 1, chat), chunk(true, 3, chat)...)))
	f.Add(ctrlPacket(testCT, netproto.CtrlClose, []byte("bye\x00")...))
	f.Add(netproto.AppendPacket(nil, netproto.PacketHeader{Flags: netproto.FlagResend, Token: testCT}, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, sent := fuzzClient()
		c.queueVitalForFuzz()
		for i := range 3 { // the same datagram three times: duplicates, stale ticks
			now := time.Duration(i+1) * netproto.TickDuration
			c.now = now
			before := *sent
			c.onDatagram(now, b)
			c.conn.flush(now)
			if *sent-before > 4*netproto.MaxPacketSize {
				t.Fatalf("answered one datagram with %d bytes", *sent-before)
			}
		}
		if c.conn.ack >= netproto.MaxSequence || c.conn.seq >= netproto.MaxSequence {
			t.Fatalf("sequence out of range: ack %d seq %d", c.conn.ack, c.conn.seq)
		}
		if c.conn.rN < 0 || c.conn.rN > maxResendChunks {
			t.Fatalf("resend buffer %d", c.conn.rN)
		}
		if cap(c.mapBuf) > MaxMapSize {
			t.Fatalf("map buffer %d", cap(c.mapBuf))
		}
		if c.stats.Snapshots < 0 || c.stats.BadMessages < 0 {
			t.Fatal("negative counters")
		}
	})
}

// queueVitalForFuzz puts two vital messages in flight so acks and resend
// requests in fuzzed packets have something to act on.
func (c *Client) queueVitalForFuzz() {
	c.sendSys(netproto.NetmsgReady)
	c.sendSys(netproto.NetmsgEnterGame)
	c.conn.flush(0)
}

// FuzzClientDatagram6 is FuzzClientDatagram for a 0.6 (DDNet) client in
// the middle of a map download: arbitrary 0.6 datagrams (the token
// appended, so they reach the message decoders) keep its bounds.
func FuzzClientDatagram6(f *testing.F) {
	const sec = 0x0a0b0c0d
	pkt := func(n int, chunks []byte) []byte {
		return netproto.AppendPacket6Compressed(nil, netproto.PacketHeader6{NumChunks: uint8(n)}, netproto.AppendToken6(chunks, sec))
	}
	var pk netproto.Packer
	md := netproto.Msg6MapData{Last: 0, CRC: 1234, Chunk: 0, Data: make([]byte, mapChunk6)}
	pk.AddMsgHeader(md.ID(), true)
	md.Pack(&pk)
	f.Add(pkt(1, append(netproto.AppendChunkHeader6(nil, netproto.ChunkHeader{Flags: netproto.ChunkVital, Seq: 1, Size: pk.Len()}), pk.Bytes()...)))
	pk.Reset()
	pk.AddMsgHeader(3, false) // Sv_Chat (0.6)
	pk.AddInt(0)
	pk.AddInt(-1)
	pk.AddString("hi")
	f.Add(pkt(1, append(netproto.AppendChunkHeader6(nil, netproto.ChunkHeader{Flags: netproto.ChunkVital, Seq: 1, Size: pk.Len()}), pk.Bytes()...)))
	f.Add(netproto.AppendClose6(nil, 0, "bye", sec, true))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, sent := fuzzClient()
		c.cfg.Proto6 = true
		c.conn.six, c.conn.sec = true, sec
		c.recv = snap.NewReceiver(snapTables(true))
		c.stage, c.inGame = StageMap, false
		c.mapKey = MapKey{Name: "fuzz", CRC: 1234, Size: 3 * mapChunk6}
		c.mapBuf = make([]byte, 0, c.mapKey.Size)
		c.queueVitalForFuzz()
		for i := range 3 {
			now := time.Duration(i+1) * netproto.TickDuration
			c.now = now
			before := *sent
			c.onDatagram(now, b)
			c.conn.flush(now)
			if *sent-before > 4*netproto.MaxPacketSize {
				t.Fatalf("answered one datagram with %d bytes", *sent-before)
			}
		}
		if c.conn.ack >= netproto.MaxSequence || c.conn.rN > maxResendChunks || len(c.mapBuf) > c.mapKey.Size {
			t.Fatalf("bounds: ack %d resend %d map %d", c.conn.ack, c.conn.rN, len(c.mapBuf))
		}
	})
}

package netproto

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
	"time"
)

// FuzzPacket parses arbitrary datagrams as 0.7 connection or connless
// packets and checks that every successfully parsed layer re-encodes to the
// same bytes (or the same values where the wire has ignored bits).
func FuzzPacket(f *testing.F) {
	for _, p := range captureSeeds(f) {
		f.Add(p)
	}
	f.Add(AppendTokenRequest(nil, 1))
	f.Add(AppendClose(nil, 1, 2, "reason"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if IsConnless(b) {
			h, payload, err := ParseConnless(b)
			if err != nil {
				return
			}
			re := AppendConnless(nil, h, payload)
			if !bytes.Equal(re[1:], b[1:]) || len(payload) > MaxPacketSize-ConnlessHeaderSize {
				t.Fatalf("connless re-encode differs")
			}
			return
		}
		h, payload, err := ParsePacket(b)
		if err != nil {
			return
		}
		if !bytes.Equal(AppendPacket(nil, h, payload), b) {
			t.Fatalf("packet re-encode differs: % x", b[:PacketHeaderSize])
		}
		raw, err := DecodePayload(make([]byte, 0, 16), h, payload)
		if err != nil {
			return
		}
		if len(raw) > MaxPayload {
			t.Fatalf("payload of %d bytes", len(raw))
		}
		if h.Flags&FlagCompression != 0 {
			// Re-compressing and decoding again yields the same payload.
			c, _ := HuffmanCompress(nil, raw)
			raw2, err := HuffmanDecompress(nil, c, MaxPayload)
			if err != nil || !bytes.Equal(raw, raw2) {
				t.Fatalf("recompress round trip: %v", err)
			}
		}
		if h.Flags&FlagControl != 0 {
			ctl, err := ParseControl(raw)
			if err == nil && len(ctl.Reason) > len(raw) {
				t.Fatal("reason longer than payload")
			}
			return
		}
		// The same payload re-packed with AppendPacketCompressed decodes back.
		// It is built in a buffer of outboxSlotSize, as Conn does, which an
		// abandoned compression attempt must never outgrow.
		slot := make([]byte, 0, outboxSlotSize)
		pk := AppendPacketCompressed(slot, PacketHeader{NumChunks: h.NumChunks, Token: h.Token, Ack: h.Ack}, raw)
		if len(raw) <= MaxPayload && (cap(pk) != outboxSlotSize || &pk[:1][0] != &slot[:1][0]) {
			t.Fatalf("packet of a %d-byte payload outgrew its %d-byte slot", len(raw), outboxSlotSize)
		}
		h2, p2, err := ParsePacket(pk)
		if err == nil {
			raw2, err := DecodePayload(nil, h2, p2)
			if err != nil || !bytes.Equal(raw2, raw) || h2.NumChunks != h.NumChunks {
				t.Fatalf("compressed packet round trip: %v", err)
			}
		} else if len(raw) <= MaxPayload {
			t.Fatalf("re-packed packet does not parse: %v", err)
		}
		checkChunks(t, raw, int(h.NumChunks), false)
	})
}

// checkChunks iterates over the chunks of payload and checks the reader's
// invariants: chunks tile the payload in order, and each header re-encodes
// to a header that parses to the same values.
func checkChunks(t *testing.T, payload []byte, n int, dial6 bool) {
	var r ChunkReader
	if dial6 {
		r.Reset6(payload, n)
	} else {
		r.Reset(payload, n)
	}
	off, count := 0, 0
	for c, ok := r.Next(); ok; c, ok = r.Next() {
		var re []byte
		var h ChunkHeader
		var hn int
		var err error
		if dial6 {
			re = AppendChunkHeader6(nil, c.ChunkHeader)
			h, hn, err = ParseChunkHeader6(re)
		} else {
			re = AppendChunkHeader(nil, c.ChunkHeader)
			h, hn, err = ParseChunkHeader(re)
		}
		if err != nil || hn != len(re) || h != c.ChunkHeader {
			t.Fatalf("chunk header %+v re-parses as %+v (%v)", c.ChunkHeader, h, err)
		}
		off += hn
		if len(c.Data) != c.Size || off+c.Size > len(payload) || (c.Size > 0 && &c.Data[0] != &payload[off]) {
			t.Fatalf("chunk data out of place at %d", off)
		}
		off += c.Size
		count++
	}
	if count > n || (r.Err() == nil && count != n && n > 0) {
		t.Fatalf("read %d chunks of %d (err %v)", count, n, r.Err())
	}
	if len(r.Rest()) != len(payload)-off {
		t.Fatalf("rest %d, want %d", len(r.Rest()), len(payload)-off)
	}
}

// FuzzChunks runs the 0.7 and 0.6 chunk readers over arbitrary payloads.
func FuzzChunks(f *testing.F) {
	for _, p := range captureSeeds(f) {
		if h, payload, err := ParsePacket(p); err == nil && h.Flags&FlagControl == 0 {
			if raw, err := DecodePayload(nil, h, payload); err == nil {
				f.Add(raw, h.NumChunks)
			}
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte, n uint8) {
		checkChunks(t, payload, int(n), false)
		checkChunks(t, payload, int(n), true)
	})
}

// FuzzSysMsg unpacks arbitrary chunk data as a system message; whatever
// unpacks without error must pack and unpack again to the same value.
func FuzzSysMsg(f *testing.F) {
	for _, p := range captureSeeds(f) {
		h, payload, err := ParsePacket(p)
		if err != nil || h.Flags&FlagControl != 0 {
			continue
		}
		raw, err := DecodePayload(nil, h, payload)
		if err != nil {
			continue
		}
		var r ChunkReader
		r.Reset(raw, int(h.NumChunks))
		for c, ok := r.Next(); ok; c, ok = r.Next() {
			f.Add(c.Data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > MaxChunkSize {
			return // no chunk carries more
		}
		var u Unpacker
		u.Reset(bytes.Clone(data))
		id, sys := u.GetMsgHeader()
		if u.Err() != nil || !sys {
			return
		}
		for _, m := range []SysMsg{newSysMsg(id), sys6(id)} {
			if m == nil {
				continue
			}
			u2 := u
			if err := m.Unpack(&u2); err != nil {
				continue
			}
			// Packing may truncate strings to their limits, so the
			// invariant is that one pack/unpack round reaches a fixed
			// point: packing the re-unpacked value gives the same bytes.
			var p Packer
			PackSys(&p, m)
			if p.Err() != nil {
				t.Fatalf("repack of %T: %v", m, p.Err())
			}
			first := bytes.Clone(p.Bytes())
			m2 := unpackLike(t, m, first)
			p.Reset()
			PackSys(&p, m2)
			if !bytes.Equal(p.Bytes(), first) {
				t.Fatalf("%T: second pack differs\n got % x\nwant % x", m, p.Bytes(), first)
			}
			if m3 := unpackLike(t, m, p.Bytes()); !reflect.DeepEqual(normalize(m2), normalize(m3)) {
				t.Fatalf("%T round trip\n got %+v\nwant %+v", m, m3, m2)
			}
			if !truncates(m) && !reflect.DeepEqual(normalize(m), normalize(m2)) {
				t.Fatalf("%T round trip\n got %+v\nwant %+v", m, m2, m)
			}
		}
	})
}

// unpackLike unpacks data (header included) into a new value of m's type.
func unpackLike(t *testing.T, m SysMsg, data []byte) SysMsg {
	var u Unpacker
	u.Reset(bytes.Clone(data))
	u.GetMsgHeader()
	m2 := reflect.New(reflect.TypeOf(m).Elem()).Interface().(SysMsg)
	switch v := m.(type) {
	case *MsgEmpty:
		m2 = &MsgEmpty{Msg: v.Msg}
	case *MsgString:
		m2 = &MsgString{Msg: v.Msg}
	}
	if err := m2.Unpack(&u); err != nil {
		t.Fatalf("%T re-unpack: %v", m, err)
	}
	return m2
}

// truncates reports whether packing m cuts one of its strings to a limit.
func truncates(m SysMsg) bool {
	long := func(s string, limit int) bool { return len(s) > limit }
	switch v := m.(type) {
	case *MsgInfo:
		return long(v.Version, MaxVersionLen) || long(v.Password, MaxPasswordLen)
	case *MsgServerInfo:
		return long(v.Version, MaxInfoVersionLen) || long(v.Name, MaxInfoNameLen) || long(v.Hostname, MaxInfoHostnameLen) ||
			long(v.MapName, MaxInfoMapLen) || long(v.GameType, MaxInfoGameTypeLen)
	case *MsgRconLine:
		return long(v.Line, MaxRconLineLen)
	case *MsgRconCmdAdd:
		return long(v.Name, MaxRconCmdNameLen) || long(v.Help, MaxRconCmdHelpLen) || long(v.Params, MaxRconCmdHelpLen)
	case *MsgString:
		return long(v.S, MaxRconPasswordLen)
	case *Msg6Info:
		return long(v.Version, MaxVersionLen) || long(v.Password, MaxPasswordLen)
	case *Msg6RconAuth:
		return long(v.Name, MaxRconPasswordLen) || long(v.Password, MaxRconPasswordLen)
	}
	return false
}

// normalize clears what packing legitimately changes: empty slices become
// nil, strings are truncated at the packer's limits.
func normalize(m SysMsg) SysMsg {
	switch v := m.(type) {
	case *MsgMapData:
		if len(v.Data) == 0 {
			v.Data = nil
		}
	case *MsgSnap:
		if len(v.Data) == 0 {
			v.Data = nil
		}
	case *MsgSnapSingle:
		if len(v.Data) == 0 {
			v.Data = nil
		}
	case *Msg6MapData:
		if len(v.Data) == 0 {
			v.Data = nil
		}
	}
	return m
}

// sys6 returns a codec for the 0.6 ids whose layout differs from 0.7.
func sys6(id int32) SysMsg {
	switch id {
	case Netmsg6Info:
		return new(Msg6Info)
	case Netmsg6MapChange:
		return new(Msg6MapChange)
	case Netmsg6MapData:
		return new(Msg6MapData)
	case Netmsg6RequestMapData:
		return new(Msg6RequestMapData)
	case Netmsg6Input:
		return new(Msg6Input)
	case Netmsg6RconAuthStatus:
		return new(Msg6RconAuthStatus)
	case Netmsg6RconAuth:
		return new(Msg6RconAuth)
	}
	return nil
}

// FuzzConn drives a server Conn with arbitrary packets and operations and
// checks its invariants: it never panics, its outbox only holds valid
// datagrams within MaxConnPacketSize, and its counters stay within bounds.
func FuzzConn(f *testing.F) {
	for _, p := range captureSeeds(f) {
		if len(p) > PacketHeaderSize {
			f.Add(p[PacketHeaderSize:], []byte{0, 1, 2, 3, 0, 4})
		}
	}
	f.Add(vitalPayload(1, 2, 4, 3), []byte{0, 0, 0, 5, 3, 1})
	f.Fuzz(func(t *testing.T, payload, ops []byte) {
		var c Conn
		c.Accept(0, 0x01020304, 0x05060708)
		now := time.Duration(0)
		buf := make([]byte, 0, MaxPacketSize)
		for i, op := range ops {
			switch op % 6 {
			case 0: // feed a data packet made from the payload
				n := uint8(op >> 3)
				var ack uint16
				if len(payload) >= 2 {
					ack = binary.BigEndian.Uint16(payload) & SequenceMask
				}
				h := PacketHeader{NumChunks: n, Ack: ack, Token: c.Token(), Flags: PacketFlags(op>>6) & FlagResend}
				data := payload[min(len(payload), 2):]
				if c.Feed(now, h, data) == nil {
					for ch, ok := c.Recv(); ok; ch, ok = c.Recv() {
						if len(ch.Data) != ch.Size || ch.Size > len(data) {
							t.Fatal("chunk out of bounds")
						}
					}
				}
			case 1: // feed a control packet
				c.Feed(now, PacketHeader{Flags: FlagControl, Token: c.Token(), Ack: c.Sequence()}, payload)
			case 2:
				c.Send(now, payload[:min(len(payload), int(op))], SendFlags(op>>6))
			case 3:
				now += time.Duration(op) * 10 * time.Millisecond
				c.Update(now)
			case 4:
				c.Flush(now)
			case 5:
				if i%7 == 0 {
					c.Disconnect(now, string(payload[:min(len(payload), 10)]))
				}
			}
			if c.Unacked() > MaxResendChunks || c.Pending() > OutboxPackets || c.State() > StateError {
				t.Fatalf("invariant broken: unacked %d pending %d state %v", c.Unacked(), c.Pending(), c.State())
			}
			for p, ok := c.Poll(buf[:0]); ok; p, ok = c.Poll(buf[:0]) {
				h, pl, err := ParsePacket(p)
				if err != nil {
					t.Fatalf("sent unparsable packet: %v", err)
				}
				if h.Token != 0x05060708 {
					t.Fatalf("sent with token %x", h.Token)
				}
				if _, err := DecodePayload(nil, h, pl); err != nil {
					t.Fatalf("sent undecodable payload: %v", err)
				}
			}
		}
	})
}

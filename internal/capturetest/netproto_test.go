package capturetest

import (
	"bytes"
	"errors"
	"testing"

	"twserver/netproto"
)

// wireStats are the per-capture figures of the netproto pass.
type wireStats struct {
	packets, connless, control, data int
	compressed, recompressed         int
	reencoded                        int // datagrams AppendPacketCompressed rebuilt byte for byte
	chunks, sysMsgs, gameMsgs        int
	snapMsgs                         [3]int // SNAP parts, SNAPEMPTY, SNAPSINGLE (server->client)
	controls                         map[byte]int
}

// checkControl parses a control packet with netproto and rebuilds it with
// AppendControl.
func checkControl(t *testing.T, cp capPacket, hdr netproto.PacketHeader, payload []byte, st *wireStats) {
	t.Helper()
	c, err := netproto.ParseControl(payload)
	if err != nil {
		t.Errorf("packet %d: ParseControl: %v: %s", cp.Index, err, fmtHex(payload))
		return
	}
	if st.controls == nil {
		st.controls = make(map[byte]int)
	}
	st.controls[c.Type]++
	wantToken := netproto.TokenNone
	if (c.Type == netproto.CtrlConnect || c.Type == netproto.CtrlToken) && len(payload) >= 5 {
		wantToken = netproto.Token(be32(payload[1:]))
	}
	if c.Type != payload[0] || c.Token != wantToken || c.Padded != (len(payload) >= 1+netproto.TokenRequestDataSize && (c.Type == netproto.CtrlConnect || c.Type == netproto.CtrlToken)) {
		t.Errorf("packet %d: control %+v from %s", cp.Index, c, fmtHex(payload[:min(len(payload), 8)]))
	}
	if c.Type == netproto.CtrlClose && len(payload) > 1 && !bytes.Equal(append(c.Reason, 0), payload[1:]) {
		t.Errorf("packet %d: close reason %q from %s", cp.Index, c.Reason, fmtHex(payload))
	}
	if hdr.Flags&netproto.FlagCompression == 0 {
		if re := netproto.AppendControl(nil, hdr.Ack, hdr.Token, c.Type, payload[1:]); !bytes.Equal(re, cp.Payload) {
			t.Errorf("packet %d: AppendControl gives %s", cp.Index, fmtHex(re))
		}
	}
}

// TestNetprotoCaptures parses every 0.7 datagram of every capture with
// netproto and checks each layer against the reference decoder: packet and
// connless headers, Huffman (decompression and byte-exact recompression),
// chunk headers and message headers.
func TestNetprotoCaptures(t *testing.T) {
	h, err := loadRefHuff()
	if err != nil {
		t.Fatal(err)
	}
	for _, cf := range captures07 {
		t.Run(cf.name, func(t *testing.T) {
			var st wireStats
			var sysSt sysStats
			var buf, rebuilt []byte
			for _, cp := range load07(t, cf.name) {
				st.packets++
				ref, err := refParsePacket(h, cp.Payload)
				if err != nil {
					t.Fatalf("packet %d: reference: %v", cp.Index, err)
				}
				if netproto.IsConnless(cp.Payload) != ref.connless {
					t.Errorf("packet %d: IsConnless = %v", cp.Index, !ref.connless)
				}
				if ref.connless {
					st.connless++
					hdr, payload, err := netproto.ParseConnless(cp.Payload)
					if err != nil {
						t.Errorf("packet %d: ParseConnless: %v: %s", cp.Index, err, fmtHex(cp.Payload))
						continue
					}
					if uint32(hdr.Token) != ref.token || uint32(hdr.ResponseToken) != ref.respToken || !bytes.Equal(payload, ref.payload) {
						t.Errorf("packet %d: connless %+v, reference tokens %08x %08x", cp.Index, hdr, ref.token, ref.respToken)
					}
					if _, _, err := netproto.ParsePacket(cp.Payload); !errors.Is(err, netproto.ErrConnless) {
						t.Errorf("packet %d: ParsePacket on a connless packet: %v", cp.Index, err)
					}
					continue
				}
				hdr, raw, err := netproto.ParsePacket(cp.Payload)
				if err != nil {
					t.Errorf("packet %d: ParsePacket: %v: %s", cp.Index, err, fmtHex(cp.Payload))
					continue
				}
				if int(hdr.Flags) != ref.flags || int(hdr.Ack) != ref.ack || int(hdr.NumChunks) != ref.numChunks || uint32(hdr.Token) != ref.token {
					t.Errorf("packet %d: header %+v, reference flags %d ack %d chunks %d token %08x", cp.Index, hdr, ref.flags, ref.ack, ref.numChunks, ref.token)
				}
				payload, err := netproto.DecodePayload(buf[:0], hdr, raw)
				if err != nil {
					t.Errorf("packet %d: DecodePayload: %v: %s", cp.Index, err, fmtHex(cp.Payload))
					continue
				}
				if !bytes.Equal(payload, ref.payload) {
					t.Errorf("packet %d: decoded payload differs from the reference:\n got %s\nwant %s", cp.Index, fmtHex(payload), fmtHex(ref.payload))
					continue
				}
				if hdr.Flags&netproto.FlagCompression != 0 {
					buf = payload[:0] // reuse the decompression buffer
					st.compressed++
					re, err := netproto.HuffmanCompress(nil, payload)
					if err != nil || !bytes.Equal(re, raw) {
						t.Errorf("packet %d: HuffmanCompress does not reproduce the payload (err %v):\n got %s\nwant %s", cp.Index, err, fmtHex(re), fmtHex(raw))
					} else {
						st.recompressed++
					}
				}
				// The sender compresses exactly when that is strictly smaller
				// (never for control packets): rebuilding the datagram from
				// its header and decoded payload must give the captured bytes.
				plain := hdr
				plain.Flags &^= netproto.FlagCompression
				rebuilt = netproto.AppendPacketCompressed(rebuilt[:0], plain, payload)
				if bytes.Equal(rebuilt, cp.Payload) {
					st.reencoded++
				}
				if hdr.Flags&netproto.FlagControl != 0 {
					st.control++
					checkControl(t, cp, hdr, payload, &st)
					continue
				}
				st.data++
				refCh, err := refChunks(ref)
				if err != nil {
					t.Fatalf("packet %d: reference chunks: %v", cp.Index, err)
				}
				var cr netproto.ChunkReader
				cr.Reset(payload, int(hdr.NumChunks))
				i := 0
				for c, ok := cr.Next(); ok; c, ok = cr.Next() {
					if i >= len(refCh) {
						t.Errorf("packet %d: more chunks than announced", cp.Index)
						break
					}
					rc := refCh[i]
					i++
					if int(c.Flags) != rc.flags || (rc.flags&1 != 0 && int(c.Seq) != rc.seq) || c.Size != len(rc.data) || !bytes.Equal(c.Data, rc.data) {
						t.Errorf("packet %d chunk %d: %+v, reference flags %d seq %d size %d", cp.Index, i-1, c.ChunkHeader, rc.flags, rc.seq, len(rc.data))
						continue
					}
					st.chunks++
					id, sys, n, err := netproto.ParseMsgHeader(c.Data)
					refMsg, refN, _ := refInt(c.Data)
					if err != nil || id != refMsg>>1 || sys != (refMsg&1 == 1) || n != refN {
						t.Errorf("packet %d chunk %d: message header %d %v %d %v, reference %d", cp.Index, i-1, id, sys, n, err, refMsg)
						continue
					}
					if !sys {
						st.gameMsgs++
						continue
					}
					st.sysMsgs++
					if !cp.toServer && id >= netproto.NetmsgSnap && id <= netproto.NetmsgSnapSingle {
						st.snapMsgs[id-netproto.NetmsgSnap]++
					}
					checkSysMsg(t, cp, i-1, id, c.Data[n:], &sysSt)
				}
				if err := cr.Err(); err != nil {
					t.Errorf("packet %d: chunks: %v", cp.Index, err)
				}
				if i != len(refCh) {
					t.Errorf("packet %d: %d chunks, reference %d", cp.Index, i, len(refCh))
				}
			}
			t.Logf("%d packets: %d connless, %d control, %d data; %d compressed, %d recompressed byte for byte; %d rebuilt byte for byte by AppendPacketCompressed; %d chunks, %d system and %d game messages; s2c SNAP %d SNAPEMPTY %d SNAPSINGLE %d; control messages by type %v",
				st.packets, st.connless, st.control, st.data, st.compressed, st.recompressed, st.reencoded, st.chunks, st.sysMsgs, st.gameMsgs, st.snapMsgs[0], st.snapMsgs[1], st.snapMsgs[2], st.controls)
			t.Logf("system messages: %d decoded, %d packed again byte for byte, %d without codec (DDNet extension id 0); by id %v", sysSt.decoded, sysSt.repacked, sysSt.unknown, sysSt.byID)
			if sysSt.decoded != sysSt.repacked || sysSt.decoded+sysSt.unknown != st.sysMsgs {
				t.Errorf("system messages: %d decoded, %d repacked, %d unknown of %d", sysSt.decoded, sysSt.repacked, sysSt.unknown, st.sysMsgs)
			}
			if st.packets != cf.packets || st.recompressed != st.compressed || st.reencoded != st.packets-st.connless {
				t.Errorf("packets %d (want %d), compressed %d, recompressed %d, rebuilt %d of %d", st.packets, cf.packets, st.compressed, st.recompressed, st.reencoded, st.packets-st.connless)
			}
			ref := refRun(t, cf.name)
			if st.snapMsgs != ref.msgKinds {
				t.Errorf("snapshot messages SNAP/SNAPEMPTY/SNAPSINGLE: netproto %v, reference %v", st.snapMsgs, ref.msgKinds)
			}
		})
	}
}

// sysCodec returns netproto's codec for a 0.7 system message id, or nil
// for ids without one (0: the DDNet server's UUID extension messages).
func sysCodec(id int32) netproto.SysMsg {
	switch id {
	case netproto.NetmsgInfo:
		return new(netproto.MsgInfo)
	case netproto.NetmsgMapChange:
		return new(netproto.MsgMapChange)
	case netproto.NetmsgMapData:
		return new(netproto.MsgMapData)
	case netproto.NetmsgServerInfo:
		return new(netproto.MsgServerInfo)
	case netproto.NetmsgConReady, netproto.NetmsgRconAuthOn, netproto.NetmsgRconAuthOff, netproto.NetmsgReady,
		netproto.NetmsgEnterGame, netproto.NetmsgRequestMapData, netproto.NetmsgPing, netproto.NetmsgPingReply:
		return &netproto.MsgEmpty{Msg: id}
	case netproto.NetmsgSnap:
		return new(netproto.MsgSnap)
	case netproto.NetmsgSnapEmpty:
		return new(netproto.MsgSnapEmpty)
	case netproto.NetmsgSnapSingle:
		return new(netproto.MsgSnapSingle)
	case netproto.NetmsgInputTiming:
		return new(netproto.MsgInputTiming)
	case netproto.NetmsgInput:
		return new(netproto.MsgInput)
	case netproto.NetmsgRconLine:
		return new(netproto.MsgRconLine)
	case netproto.NetmsgRconCmdAdd:
		return new(netproto.MsgRconCmdAdd)
	case netproto.NetmsgRconCmdRem, netproto.NetmsgRconCmd, netproto.NetmsgRconAuth,
		netproto.NetmsgMaplistEntryAdd, netproto.NetmsgMaplistEntryRem:
		return &netproto.MsgString{Msg: id}
	}
	return nil
}

// sysStats count the system messages of one capture.
type sysStats struct {
	decoded, repacked, unknown int
	byID                       map[int32]int
}

// checkSysMsg decodes the body of a system message with netproto's codec,
// requires the codec to use the whole body, packs the decoded message again
// and requires the captured bytes, and compares snapshot messages with the
// reference parse.
func checkSysMsg(t *testing.T, cp capPacket, chunk int, id int32, body []byte, st *sysStats) {
	t.Helper()
	m := sysCodec(id)
	if m == nil {
		if id != 0 {
			t.Errorf("packet %d chunk %d: no codec for system message %d", cp.Index, chunk, id)
		}
		st.unknown++
		return
	}
	var u netproto.Unpacker
	u.Reset(bytes.Clone(body)) // strings are sanitized in place
	if err := m.Unpack(&u); err != nil {
		t.Errorf("packet %d chunk %d: system message %d: %v: %s", cp.Index, chunk, id, err, fmtHex(body))
		return
	}
	st.decoded++
	if st.byID == nil {
		st.byID = make(map[int32]int)
	}
	st.byID[id]++
	if u.Remaining() != 0 {
		t.Errorf("packet %d chunk %d: system message %d leaves %d bytes: %s", cp.Index, chunk, id, u.Remaining(), fmtHex(body))
	}
	var p netproto.Packer
	netproto.PackSys(&p, m)
	want := netproto.AppendMsgHeader(nil, id, true)
	want = append(want, body...)
	if p.Err() != nil || !bytes.Equal(p.Bytes(), want) {
		t.Errorf("packet %d chunk %d: system message %d packs to %s (%v), captured %s", cp.Index, chunk, id, fmtHex(p.Bytes()), p.Err(), fmtHex(want))
	} else {
		st.repacked++
	}
	if id < netproto.NetmsgSnap || id > netproto.NetmsgSnapSingle {
		return
	}
	ref, err := refParseSnapMsg(int(id), body)
	if err != nil {
		t.Errorf("packet %d chunk %d: reference: %v", cp.Index, chunk, err)
		return
	}
	var got refSnapMsg
	switch m := m.(type) {
	case *netproto.MsgSnap:
		got = refSnapMsg{id: int(id), tick: m.Tick, deltaDiff: m.DeltaTick, numParts: m.NumParts, part: m.Part, crc: m.CRC, data: m.Data}
	case *netproto.MsgSnapEmpty:
		got = refSnapMsg{id: int(id), tick: m.Tick, deltaDiff: m.DeltaTick, numParts: 1}
	case *netproto.MsgSnapSingle:
		got = refSnapMsg{id: int(id), tick: m.Tick, deltaDiff: m.DeltaTick, numParts: 1, crc: m.CRC, data: m.Data}
	}
	if got.tick != ref.tick || got.deltaDiff != ref.deltaDiff || got.numParts != ref.numParts || got.part != ref.part ||
		got.crc != ref.crc || !bytes.Equal(got.data, ref.data) {
		t.Errorf("packet %d chunk %d: snapshot message %+v, reference %+v", cp.Index, chunk, got, ref)
	}
}

package server

import (
	"testing"
	"time"

	"twserver/config"
	"twserver/netproto"
)

// TestStalePacketOpensNoSlot: a datagram the reader let through because its
// address had a slot (tagged with it, so no token check) but that the loop
// handles after the slot was dropped (a kicked client's INPUT sent before
// it saw the CLOSE) is stale: it opens no slot. The loop used to take it
// for a connection request of whatever dialect its first byte says
// (without the reader's token check): a 0.7 client's compressed data
// packet whose token starts with 3 reads as a DDNet ACCEPT carrying a
// token, and opened a DDNet slot whose KEEPALIVEs the 0.7 client could not
// read ("bad huffman data", the rare failure of TestRconBanTime).
func TestStalePacketOpensNoSlot(t *testing.T) {
	chunk := netproto.AppendChunkHeader(nil, netproto.ChunkHeader{Size: 40})
	chunk = append(chunk, make([]byte, 40)...) // compresses well
	asAccept6 := netproto.AppendPacketCompressed(nil, netproto.PacketHeader{Ack: 5, NumChunks: 1, Token: 0x11223344}, chunk)
	asAccept6[netproto.PacketHeaderSize6] = netproto.Ctrl6Accept // the token's first byte
	if h, _, err := netproto.ParsePacket(asAccept6); err != nil || h.Flags&netproto.FlagCompression == 0 || netproto.Is7Packet(asAccept6) {
		t.Fatalf("test packet % x is not a compressed 0.7 data packet read as 0.6: %v", asAccept6, err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"0.7 data read as a DDNet ACCEPT", asAccept6},
		{"0.7 CONNECT with an unchecked token", netproto.AppendConnect(nil, 0x55667788, 0x0a0b0c0d)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec recordConn
			cfg := config.Default()
			s := newServerInGame(t, cfg, &rec, 2)
			c := s.clients[0]
			addr := c.addr
			p := &rxPacket{cid: c.id, addr: addr, at: time.Now()} // as the reader tagged it
			p.n = copy(p.buf[:], tc.b)
			s.dropClient(c, "Kicked by console")
			s.flushAll()
			sent := len(rec.datagrams)
			s.handlePacket(p)
			s.flushAll()
			if cid, ok := s.byAddr[addr]; ok {
				t.Errorf("a stale packet opened slot %d (%s) for %v", cid, s.clients[cid].conn.Dialect(), addr)
			}
			for i := sent; i < len(rec.datagrams); i++ {
				if rec.to[i] == addr {
					t.Errorf("sent % x to the dropped client", rec.datagrams[i])
				}
			}
		})
	}
}

package dialect6

import (
	"net/netip"
	"os"
	"testing"

	"twserver/internal/pcap"
	"twserver/netproto"
)

// capturedMsg is one message of a captured 0.6 session.
type capturedMsg struct {
	fromServer bool
	id         int32
	system     bool
	body       []byte // after the header varint
}

// sessionMessages returns, in order, the messages of the real DDNet 16.4
// client ↔ DDNet-Server 16.4 session in testdata/sessionddnet.pcap (0.6
// with DDNet's token extension; server port 8304).
func sessionMessages(t testing.TB) []capturedMsg {
	t.Helper()
	const serverPort = 8304
	b, err := os.ReadFile("testdata/sessionddnet.pcap")
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := pcap.ReadUDP(b)
	if err != nil {
		t.Fatal(err)
	}
	loopback := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	var out []capturedMsg
	for _, d := range pkts {
		if d.Dst.Addr() != loopback || netproto.IsConnless(d.Payload) {
			continue
		}
		h, p, err := netproto.ParsePacket6(d.Payload)
		if err != nil {
			t.Fatalf("packet: %v", err)
		}
		if h.Flags&netproto.Flag6Control != 0 {
			continue
		}
		if h.Flags&netproto.Flag6Token != 0 && len(p) >= 4 { // DDNet security token at the end
			p = p[:len(p)-4]
		}
		if h.Flags&netproto.Flag6Compression != 0 {
			buf := make([]byte, 0, netproto.MaxPayload)
			if p, err = netproto.HuffmanDecompress(buf, p, netproto.MaxPayload); err != nil {
				t.Fatalf("payload: %v", err)
			}
		}
		var cr netproto.ChunkReader
		cr.Reset6(p, int(h.NumChunks))
		for {
			c, ok := cr.Next()
			if !ok {
				break
			}
			var u netproto.Unpacker
			u.Reset(c.Data)
			id, sys := u.GetMsgHeader()
			if u.Err() != nil {
				t.Fatalf("header: %v", u.Err())
			}
			out = append(out, capturedMsg{d.Src.Port() == serverPort, id, sys, append([]byte(nil), u.Rest()...)})
		}
		if err := cr.Err(); err != nil {
			t.Fatalf("chunks: %v", err)
		}
	}
	return out
}

func TestDumpSession(t *testing.T) {
	for _, m := range sessionMessages(t) {
		if m.system {
			continue
		}
		t.Logf("server=%v id=%d %s % x", m.fromServer, m.id, MsgName(m.id), m.body[:min(len(m.body), 80)])
	}
}

// Package capturetest proves the wire and snapshot packages against traffic
// recorded between the real Teeworlds 0.7.5 programs (testdata/*.pcap): every
// 0.7 packet must parse, Huffman must reproduce every compressed payload byte
// for byte, and the client-side snapshot path must rebuild every snapshot the
// server sent with a matching CRC.
package capturetest

import (
	"fmt"
	"net/netip"
	"os"
	"testing"

	"twserver/internal/pcap"
)

// captureFile describes one 0.7 capture.
type captureFile struct {
	name string
	// packets is the number of 0.7 datagrams addressed to 127.0.0.1.
	packets int
}

var captures07 = []captureFile{
	{"session07.pcap", 511},
	{"session07_mapdl.pcap", 537},
	{"session07_on_ddnet.pcap", 531},
	{"session07_crowd.pcap", 476},
	{"session07_crowd_lag.pcap", 411},
	{"crapnet07.pcap", 3520},
	{"twinfo_06_07.pcap", 24},
}

var loopback = netip.MustParseAddr("127.0.0.1")

// flow is one direction of a UDP conversation.
type flow struct{ src, dst netip.AddrPort }

func (f flow) String() string { return f.src.String() + "->" + f.dst.String() }

// capPacket is a 0.7 datagram of a capture.
type capPacket struct {
	pcap.Packet
	flow flow
	// toServer is true for datagrams sent by the side that opened the conversation.
	toServer bool
}

// load07 returns the 0.7 datagrams of a capture addressed to 127.0.0.1.
// Datagrams of the 0.6 protocol (first byte with the top bits set: 0.6
// connless packets start with ff) are left out. The client of each
// conversation is the peer that sent the first token request (0.7 control
// TOKEN with header token ffffffff) or, for connless traffic, the peer whose
// first packet was not an answer.
func load07(t testing.TB, name string) []capPacket {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := pcap.ReadUDP(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	type pair struct{ a, b netip.AddrPort }
	key := func(f flow) pair {
		if f.src.Compare(f.dst) < 0 {
			return pair{f.src, f.dst}
		}
		return pair{f.dst, f.src}
	}
	client := make(map[pair]netip.AddrPort) // opener of each conversation
	var out []capPacket
	for _, p := range pkts {
		if p.Dst.Addr() != loopback || len(p.Payload) == 0 || p.Payload[0]&0xc0 != 0 {
			continue
		}
		f := flow{p.Src, p.Dst}
		k := key(f)
		if _, ok := client[k]; !ok {
			client[k] = p.Src // the first packet of a conversation comes from its opener
		}
		out = append(out, capPacket{Packet: p, flow: f, toServer: client[k] == p.Src})
	}
	return out
}

// TestCaptureInventory pins the number of 0.7 datagrams per capture and
// checks that every conversation was opened by a token request.
func TestCaptureInventory(t *testing.T) {
	for _, cf := range captures07 {
		t.Run(cf.name, func(t *testing.T) {
			pkts := load07(t, cf.name)
			if len(pkts) != cf.packets {
				t.Errorf("%d 0.7 datagrams, want %d", len(pkts), cf.packets)
			}
			seen := make(map[flow]bool)
			for _, p := range pkts {
				if seen[p.flow] || !p.toServer {
					continue
				}
				seen[p.flow] = true
				d := p.Payload
				// 0.7 TOKEN request: control, header token NONE, control byte 5.
				// Connless info requests are opened the same way.
				if len(d) < 8 || d[0]&0x04 == 0 || be32(d[3:]) != 0xffffffff || d[7] != 5 {
					t.Errorf("packet %d: conversation %v opened by % x", p.Index, p.flow, d[:min(len(d), 8)])
				}
			}
		})
	}
}

// fmtHex formats bytes for failure reports.
func fmtHex(b []byte) string { return fmt.Sprintf("% x", b) }

package netproto

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"os"
	"testing"
)

// capturedPacket is one UDP datagram from a capture file.
type capturedPacket struct {
	src, dst netip.AddrPort
	data     []byte
}

// Link types of the classic pcap format understood by readPcap.
const (
	linkNull      = 0   // BSD loopback: 4-byte address family
	linkEthernet  = 1   // Ethernet II, optionally one VLAN tag
	linkRaw       = 101 // raw IPv4/IPv6
	linkLinuxSLL  = 113 // Linux cooked capture v1
	linkLinuxSLL2 = 276 // Linux cooked capture v2
)

var loopback = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// readPcap reads a classic pcap file and returns the UDP/IPv4 datagrams sent
// to 127.0.0.1 (LAN broadcasts and other destinations are skipped).
func readPcap(path string) ([]capturedPacket, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 24 {
		return nil, errors.New("pcap: short file")
	}
	var bo binary.ByteOrder
	switch binary.LittleEndian.Uint32(b) {
	case 0xa1b2c3d4, 0xa1b23c4d:
		bo = binary.LittleEndian
	case 0xd4c3b2a1, 0x4d3cb2a1:
		bo = binary.BigEndian
	default:
		return nil, errors.New("pcap: not a classic pcap file")
	}
	link := bo.Uint32(b[20:24]) & 0xffff
	var out []capturedPacket
	for off := 24; off < len(b); {
		if len(b)-off < 16 {
			return nil, errors.New("pcap: truncated record header")
		}
		incl := int(bo.Uint32(b[off+8:]))
		off += 16
		if incl < 0 || incl > len(b)-off {
			return nil, errors.New("pcap: truncated record")
		}
		frame := b[off : off+incl]
		off += incl
		p, ok := decodeFrame(link, frame)
		if ok && p.dst.Addr() == loopback {
			out = append(out, p)
		}
	}
	return out, nil
}

// decodeFrame extracts a UDP/IPv4 datagram from one captured frame.
func decodeFrame(link uint32, f []byte) (capturedPacket, bool) {
	var ip []byte
	switch link {
	case linkNull:
		if len(f) < 4 || (binary.LittleEndian.Uint32(f) != 2 && binary.BigEndian.Uint32(f) != 2) {
			return capturedPacket{}, false
		}
		ip = f[4:]
	case linkEthernet:
		if len(f) < 14 {
			return capturedPacket{}, false
		}
		et, rest := binary.BigEndian.Uint16(f[12:]), f[14:]
		if et == 0x8100 && len(rest) >= 4 {
			et, rest = binary.BigEndian.Uint16(rest[2:]), rest[4:]
		}
		if et != 0x0800 {
			return capturedPacket{}, false
		}
		ip = rest
	case linkRaw:
		ip = f
	case linkLinuxSLL:
		if len(f) < 16 || binary.BigEndian.Uint16(f[14:]) != 0x0800 {
			return capturedPacket{}, false
		}
		ip = f[16:]
	case linkLinuxSLL2:
		if len(f) < 20 || binary.BigEndian.Uint16(f[0:]) != 0x0800 {
			return capturedPacket{}, false
		}
		ip = f[20:]
	default:
		return capturedPacket{}, false
	}
	if len(ip) < 20 || ip[0]>>4 != 4 || ip[9] != 17 {
		return capturedPacket{}, false
	}
	ihl := int(ip[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(ip[2:]))
	if ihl < 20 || total < ihl+8 || total > len(ip) {
		return capturedPacket{}, false
	}
	src := netip.AddrFrom4([4]byte(ip[12:16]))
	dst := netip.AddrFrom4([4]byte(ip[16:20]))
	udp := ip[ihl:total]
	ulen := int(binary.BigEndian.Uint16(udp[4:]))
	if ulen < 8 || ulen > len(udp) {
		return capturedPacket{}, false
	}
	return capturedPacket{
		src:  netip.AddrPortFrom(src, binary.BigEndian.Uint16(udp[0:])),
		dst:  netip.AddrPortFrom(dst, binary.BigEndian.Uint16(udp[2:])),
		data: udp[8:ulen],
	}, true
}

// captures07 are the 0.7 captures in testdata.
var captures07 = []string{"session07.pcap", "session07_mapdl.pcap", "crapnet07.pcap"}

// loadCapture reads testdata/name or fails the test.
func loadCapture(t testing.TB, name string) []capturedPacket {
	t.Helper()
	ps, err := readPcap("testdata/" + name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(ps) == 0 {
		t.Fatalf("%s: no packets", name)
	}
	return ps
}

// captureSeeds returns the datagrams of the main 0.7 session capture.
func captureSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, p := range loadCapture(t, "session07.pcap") {
		out = append(out, p.data)
	}
	return out
}

func TestReadPcap(t *testing.T) {
	ps := loadCapture(t, "session07.pcap")
	// 514 packets, 3 of which are LAN broadcasts.
	if len(ps) != 511 {
		t.Fatalf("got %d packets to 127.0.0.1, want 511", len(ps))
	}
	toServer := 0
	for _, p := range ps {
		if p.dst.Port() == 8303 {
			toServer++
		}
	}
	if toServer != 214-3 {
		t.Fatalf("client->server packets: %d, want %d", toServer, 214-3)
	}
	if _, err := readPcap("testdata/huffman_codes.txt"); err == nil {
		t.Fatal("text file read as pcap")
	}
}

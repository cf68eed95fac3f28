package pcap

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"testing"
	"time"
)

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSession07 checks the reader against figures taken from the capture
// summary (session07.pcap.txt) and a dissector run on the same file.
func TestSession07(t *testing.T) {
	data := readFile(t, "session07.pcap")
	r, err := NewReader(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.LinkType() != LinkEthernet || r.NanoTimestamps() || r.SnapLen() != 262144 {
		t.Fatalf("header: link %v nano %v snaplen %d", r.LinkType(), r.NanoTimestamps(), r.SnapLen())
	}
	pkts, err := ReadUDP(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkts) != 514 {
		t.Fatalf("got %d packets, want 514", len(pkts))
	}
	server := netip.MustParseAddrPort("127.0.0.1:8303")
	client := netip.MustParseAddrPort("127.0.0.1:54178")
	var s2c, c2s, bcast int
	for i, p := range pkts {
		if p.Index != i {
			t.Fatalf("packet %d has index %d", i, p.Index)
		}
		switch {
		case p.Src == server && p.Dst == client:
			s2c++
		case p.Src == client && p.Dst == server:
			c2s++
		case p.Dst == netip.MustParseAddrPort("255.255.255.255:8303"):
			bcast++
		default:
			t.Errorf("packet %d: unexpected %v -> %v", i, p.Src, p.Dst)
		}
		if i > 0 && p.Time.Before(pkts[i-1].Time) {
			t.Errorf("packet %d: time goes backwards", i)
		}
	}
	if s2c != 300 || c2s != 211 || bcast != 3 {
		t.Errorf("s2c %d c2s %d broadcast %d, want 300 211 3", s2c, c2s, bcast)
	}
	tests := []struct {
		idx      int
		sec, ns  int64
		src, dst string
		udpLen   int
		prefix   string
	}{
		{0, 1795304413, 703567000, "127.0.0.1:54178", "127.0.0.1:8303", 528, "040000ffffffff052b74e9b00000000000000000"},
		{1, 1795304413, 703620000, "127.0.0.1:8303", "127.0.0.1:54178", 20, "0400002b74e9b0058f47c5da"},
		{99, 1795304416, 916601000, "127.0.0.1:8303", "127.0.0.1:54178", 27, "0005022b74e9b00004158d030e00040f8e0304"},
		{513, 1795304426, 639912000, "127.0.0.1:54178", "127.0.0.1:8303", 16, "040d008f47c5da04"},
	}
	for _, tc := range tests {
		p := pkts[tc.idx]
		want, _ := hex.DecodeString(tc.prefix)
		if p.Src.String() != tc.src || p.Dst.String() != tc.dst || len(p.Payload) != tc.udpLen-8 ||
			!bytes.HasPrefix(p.Payload, want) || !p.Time.Equal(time.Unix(tc.sec, tc.ns)) {
			t.Errorf("packet %d: %v %v -> %v len %d % x", tc.idx, p.Time, p.Src, p.Dst, len(p.Payload), p.Payload[:min(len(p.Payload), 20)])
		}
	}
}

func TestTwinfo(t *testing.T) {
	pkts, err := ReadUDP(readFile(t, "twinfo_06_07.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkts) != 33 {
		t.Fatalf("got %d packets, want 33", len(pkts))
	}
	// Frame 10: a 0.7 connless info reply (91 bytes of UDP).
	p := pkts[9]
	if p.Src.Port() != 8312 || p.Dst.Port() != 50460 || len(p.Payload) != 83 || p.Payload[0] != 0x21 {
		t.Errorf("frame 10: %v -> %v len %d", p.Src, p.Dst, len(p.Payload))
	}
}

// byteOrder is a byte order that can also append.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// capture assembles a classic pcap file for tests.
type capture struct {
	order byteOrder
	nano  bool
	link  LinkType
	buf   []byte
}

func newCapture(order byteOrder, nano bool, link LinkType) *capture {
	c := &capture{order: order, nano: nano, link: link}
	magic := uint32(magicMicro)
	if nano {
		magic = magicNano
	}
	c.buf = order.AppendUint32(c.buf, magic)
	c.buf = order.AppendUint16(c.buf, 2)
	c.buf = order.AppendUint16(c.buf, 4)
	c.buf = order.AppendUint32(c.buf, 0)
	c.buf = order.AppendUint32(c.buf, 0)
	c.buf = order.AppendUint32(c.buf, 65535)
	c.buf = order.AppendUint32(c.buf, uint32(link))
	return c
}

func (c *capture) add(ts time.Time, origLen int, frame []byte) {
	c.buf = c.order.AppendUint32(c.buf, uint32(ts.Unix()))
	if c.nano {
		c.buf = c.order.AppendUint32(c.buf, uint32(ts.Nanosecond()))
	} else {
		c.buf = c.order.AppendUint32(c.buf, uint32(ts.Nanosecond()/1000))
	}
	c.buf = c.order.AppendUint32(c.buf, uint32(len(frame)))
	c.buf = c.order.AppendUint32(c.buf, uint32(origLen))
	c.buf = append(c.buf, frame...)
}

// appendIPUDP appends an IPv4 or IPv6 packet holding one UDP datagram.
func appendIPUDP(dst []byte, src, to netip.AddrPort, payload []byte) []byte {
	udp := binary.BigEndian.AppendUint16(nil, src.Port())
	udp = binary.BigEndian.AppendUint16(udp, to.Port())
	udp = binary.BigEndian.AppendUint16(udp, uint16(8+len(payload)))
	udp = append(udp, 0, 0)
	udp = append(udp, payload...)
	if src.Addr().Is4() {
		dst = append(dst, 0x45, 0)
		dst = binary.BigEndian.AppendUint16(dst, uint16(20+len(udp)))
		dst = append(dst, 0x12, 0x34, 0x40, 0, 64, protoUDP, 0, 0)
		s, d := src.Addr().As4(), to.Addr().As4()
		dst = append(dst, s[:]...)
		dst = append(dst, d[:]...)
	} else {
		dst = append(dst, 0x60, 0, 0, 0)
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(udp)))
		dst = append(dst, protoUDP, 64)
		s, d := src.Addr().As16(), to.Addr().As16()
		dst = append(dst, s[:]...)
		dst = append(dst, d[:]...)
	}
	return append(dst, udp...)
}

// appendFrame wraps an IP packet in the link layer of the given type.
func appendFrame(dst []byte, link LinkType, order byteOrder, ip []byte) []byte {
	v6 := ip[0]>>4 == 6
	et := uint16(etherTypeIPv4)
	if v6 {
		et = etherTypeIPv6
	}
	switch link {
	case LinkEthernet:
		dst = append(dst, make([]byte, 12)...)
		dst = binary.BigEndian.AppendUint16(dst, et)
	case LinkNull:
		fam := uint32(2)
		if v6 {
			fam = 30
		}
		dst = order.AppendUint32(dst, fam)
	case LinkLoop:
		fam := uint32(2)
		if v6 {
			fam = 24
		}
		dst = binary.BigEndian.AppendUint32(dst, fam)
	case LinkLinuxSLL:
		dst = append(dst, 0, 0, 0, 0x304&0xff, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0)
		dst = binary.BigEndian.AppendUint16(dst, et)
	case LinkLinuxSLL2:
		dst = binary.BigEndian.AppendUint16(dst, et)
		dst = append(dst, 0, 0, 0, 0, 0, 1, 3, 4, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	return append(dst, ip...)
}

func TestLinkTypes(t *testing.T) {
	links := []LinkType{LinkEthernet, LinkNull, LinkLoop, LinkLinuxSLL, LinkLinuxSLL2, LinkRaw}
	orders := []byteOrder{binary.LittleEndian, binary.BigEndian}
	flows := []struct{ src, dst string }{
		{"127.0.0.1:54178", "127.0.0.1:8303"},
		{"[::1]:8303", "[fe80::1]:40000"},
	}
	start := time.Date(2026, 11, 22, 0, 30, 0, 123456789, time.UTC)
	for _, link := range links {
		for _, order := range orders {
			for _, nano := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/%v/nano=%v", link, order, nano), func(t *testing.T) {
					c := newCapture(order, nano, link)
					var want []Packet
					for i := range 6 {
						f := flows[i%2]
						src, dst := netip.MustParseAddrPort(f.src), netip.MustParseAddrPort(f.dst)
						payload := bytes.Repeat([]byte{byte(i)}, i*7)
						ts := start.Add(time.Duration(i) * 1500 * time.Millisecond)
						frame := appendFrame(nil, link, order, appendIPUDP(nil, src, dst, payload))
						if link == LinkEthernet {
							frame = append(frame, 0, 0, 0, 0) // trailing padding is ignored
						}
						c.add(ts, len(frame), frame)
						if !nano {
							ts = ts.Truncate(time.Microsecond)
						}
						want = append(want, Packet{Index: i, Time: ts, Datagram: Datagram{Src: src, Dst: dst, Payload: payload}})
					}
					got, err := ReadUDP(c.buf)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(want) {
						t.Fatalf("got %d packets, want %d", len(got), len(want))
					}
					for i := range got {
						g, w := got[i], want[i]
						if g.Index != w.Index || !g.Time.Equal(w.Time) || g.Src != w.Src || g.Dst != w.Dst || !bytes.Equal(g.Payload, w.Payload) {
							t.Errorf("packet %d: got %+v want %+v", i, g, w)
						}
					}
				})
			}
		}
	}
}

// One malformed frame per DecodeUDP error, for every link layer.
func TestDecodeUDPMalformed(t *testing.T) {
	v4 := appendIPUDP(nil, netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"), []byte("hi"))
	v6 := appendIPUDP(nil, netip.MustParseAddrPort("[::1]:1"), netip.MustParseAddrPort("[::1]:2"), []byte("hi"))
	eth := func(ip []byte) []byte { return appendFrame(nil, LinkEthernet, nil, ip) }
	vlan := func(tags int) []byte {
		f := make([]byte, 12, 12+4*tags+2)
		for range tags {
			f = append(f, 0x81, 0x00, 0, 1)
		}
		return append(f, 0x81, 0x00) // one more tag announced than present
	}
	set := func(b []byte, off int, v byte) []byte { b = bytes.Clone(b); b[off] = v; return b }
	for _, tc := range []struct {
		name  string
		link  LinkType
		frame []byte
		want  error
	}{
		{"ethernet header", LinkEthernet, make([]byte, 13), ErrTruncated},
		{"vlan tag", LinkEthernet, vlan(0), ErrTruncated},
		{"not ip", LinkEthernet, append(make([]byte, 12), 0x08, 0x06, 0), ErrNotIP},
		{"loopback header", LinkNull, []byte{2, 0, 0}, ErrTruncated},
		{"loopback family", LinkNull, append([]byte{7, 0, 0, 0}, v4...), ErrNotIP},
		{"sll header", LinkLinuxSLL, make([]byte, 15), ErrTruncated},
		{"sll2 header", LinkLinuxSLL2, make([]byte, 19), ErrTruncated},
		{"raw empty", LinkRaw, nil, ErrTruncated},
		{"ipv4 link empty", LinkIPv4, nil, ErrTruncated},
		{"link says ipv6", LinkIPv6, v4, ErrBadIP},
		{"unknown link", LinkType(999), v4, ErrUnsupportedLink},
		{"ipv4 header", LinkRaw, v4[:19], ErrTruncated},
		{"ipv4 not udp", LinkRaw, set(v4, 9, 6), ErrNotUDP},
		{"ipv6 header", LinkRaw, v6[:39], ErrTruncated},
		{"ipv6 payload past end", LinkRaw, v6[:len(v6)-1], ErrTruncated},
		{"ipv6 not udp", LinkRaw, set(v6, 6, 58), ErrNotUDP},
		{"udp header", LinkRaw, set(set(v4[:27], 2, 0), 3, 27), ErrTruncated},
		{"ethernet ipv6 udp length", LinkEthernet, set(eth(v6), ethernetHeaderSize+ipv6HeaderLen+5, 99), ErrBadUDP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := DecodeUDP(tc.link, tc.frame); !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSkipsNonUDP(t *testing.T) {
	c := newCapture(binary.LittleEndian, false, LinkEthernet)
	arp := append(make([]byte, 12), 0x08, 0x06)
	arp = append(arp, make([]byte, 28)...)
	c.add(time.Unix(1, 0), len(arp), arp)
	ip := appendIPUDP(nil, netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"), []byte("x"))
	tcp := appendFrame(nil, LinkEthernet, nil, ip)
	tcp[14+9] = 6
	c.add(time.Unix(2, 0), len(tcp), tcp)
	udp := appendFrame(nil, LinkEthernet, nil, ip)
	c.add(time.Unix(3, 0), len(udp), udp)
	got, err := ReadUDP(c.buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Index != 2 || string(got[0].Payload) != "x" {
		t.Fatalf("got %+v", got)
	}
}

func TestMalformed(t *testing.T) {
	good := newCapture(binary.LittleEndian, false, LinkEthernet)
	ip := appendIPUDP(nil, netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"), []byte("hello"))
	frame := appendFrame(nil, LinkEthernet, nil, ip)
	good.add(time.Unix(5, 0), len(frame), frame)

	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good.buf)) }
	hdr := FileHeaderSize
	eth := FileHeaderSize + RecordHeaderSize
	ipOff := eth + ethernetHeaderSize
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"short header", good.buf[:10], ErrTruncated},
		{"bad magic", mod(func(b []byte) []byte { b[0] = 0; return b }), ErrBadMagic},
		{"bad version", mod(func(b []byte) []byte { b[4] = 3; return b }), ErrBadVersion},
		{"short record header", good.buf[:hdr+5], ErrTruncated},
		{"short record", good.buf[:len(good.buf)-1], ErrTruncated},
		{"huge record", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[hdr+8:], 1<<30); return b }), ErrRecordTooLarge},
		{"incl > orig", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[hdr+12:], 3); return b }), ErrBadRecord},
		{"bad usec", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[hdr+4:], 1e6); return b }), ErrBadRecord},
		{"bad link", mod(func(b []byte) []byte { b[20] = 200; return b }), ErrUnsupportedLink},
		{"ip version", mod(func(b []byte) []byte { b[ipOff] = 0x55; return b }), ErrBadIP},
		{"ihl", mod(func(b []byte) []byte { b[ipOff] = 0x44; return b }), ErrBadIP},
		{"ip total too long", mod(func(b []byte) []byte { b[ipOff+3] += 1; return b }), ErrTruncated},
		{"fragment", mod(func(b []byte) []byte { b[ipOff+6] = 0x20; return b }), nil},
		{"udp length short", mod(func(b []byte) []byte { b[ipOff+20+5] = 7; return b }), ErrBadUDP},
		{"udp length long", mod(func(b []byte) []byte { b[ipOff+20+5] = 99; return b }), ErrBadUDP},
		{"truncated by snaplen", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[hdr+8:], uint32(len(frame)-2))
			return b[:len(b)-2]
		}), ErrTruncated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pkts, err := ReadUDP(tc.data)
			if tc.want == nil {
				if err != nil || len(pkts) != 0 {
					t.Fatalf("got %d packets, err %v; want skipped", len(pkts), err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := ReadUDP(good.buf); err != nil {
		t.Fatal(err)
	}
}

func TestStickyError(t *testing.T) {
	data := readFile(t, "session07.pcap")
	r, err := NewReader(data[:FileHeaderSize+RecordHeaderSize+3])
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := r.Next(); !errors.Is(err, ErrTruncated) {
			t.Fatalf("err %v", err)
		}
	}
	r, _ = NewReader(data[:FileHeaderSize])
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("empty capture: err %v", err)
	}
}

func BenchmarkReadUDP(b *testing.B) {
	data := readFile(b, "session07.pcap")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r, _ := NewReader(data)
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if _, err := DecodeUDP(r.LinkType(), rec.Data); err != nil {
				b.Fatal(err)
			}
		}
	}
}

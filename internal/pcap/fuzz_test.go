package pcap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"
)

// FuzzReader checks that any input either fails with an error or yields
// records that, written back out, read again identically.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"session07.pcap", "twinfo_06_07.pcap"} {
		data := readFile(f, name)
		f.Add(data[:min(len(data), 2000)])
	}
	c := newCapture(binary.BigEndian, true, LinkLinuxSLL2)
	c.add(time.Unix(1795304413, 5), 100, []byte{1, 2, 3})
	f.Add(c.buf)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(data)
		if err != nil {
			return
		}
		order := byteOrder(binary.LittleEndian)
		if binary.BigEndian.Uint32(data) == magicMicro || binary.BigEndian.Uint32(data) == magicNano {
			order = binary.BigEndian
		}
		out := newCapture(order, r.NanoTimestamps(), r.LinkType())
		copy(out.buf[16:20], data[16:20]) // snap length
		var recs []Record
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if _, again := r.Next(); again != err {
					t.Fatalf("error not sticky: %v then %v", err, again)
				}
				break
			}
			if len(rec.Data) > rec.OrigLen || len(rec.Data) > MaxRecordSize {
				t.Fatalf("record of %d bytes, orig %d", len(rec.Data), rec.OrigLen)
			}
			recs = append(recs, rec)
			out.add(rec.Time, rec.OrigLen, rec.Data)
			// Decoding must not panic; a decoded payload lies inside the frame.
			if d, err := DecodeUDP(r.LinkType(), rec.Data); err == nil && len(d.Payload) > len(rec.Data) {
				t.Fatalf("payload of %d bytes in a frame of %d", len(d.Payload), len(rec.Data))
			}
		}
		r2, err := NewReader(out.buf)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range recs {
			got, err := r2.Next()
			if err != nil || !got.Time.Equal(want.Time) || got.OrigLen != want.OrigLen || !bytes.Equal(got.Data, want.Data) {
				t.Fatalf("record %d after round trip: %+v %v, want %+v", i, got, err, want)
			}
		}
		if _, err := r2.Next(); err != io.EOF {
			t.Fatalf("extra data after round trip: %v", err)
		}
	})
}

// FuzzDecodeUDP checks that a decoded datagram, re-encoded in the same link
// type, decodes to the same addresses and payload.
func FuzzDecodeUDP(f *testing.F) {
	pkts, err := ReadUDP(readFile(f, "session07.pcap"))
	if err != nil {
		f.Fatal(err)
	}
	for _, i := range []int{0, 1, 99, 513} {
		f.Add(uint16(LinkEthernet), appendFrame(nil, LinkEthernet, nil, appendIPUDP(nil, pkts[i].Src, pkts[i].Dst, pkts[i].Payload)))
	}
	v6 := appendIPUDP(nil, netip.MustParseAddrPort("[::1]:8303"), netip.MustParseAddrPort("[::1]:1234"), []byte{0x21, 1, 2})
	for _, link := range []LinkType{LinkNull, LinkLoop, LinkLinuxSLL, LinkLinuxSLL2, LinkRaw, LinkIPv6} {
		f.Add(uint16(link), appendFrame(nil, link, binary.LittleEndian, v6))
	}
	f.Fuzz(func(t *testing.T, link uint16, frame []byte) {
		d, err := DecodeUDP(LinkType(link), frame)
		if err != nil {
			if d.Payload != nil {
				t.Fatal("payload returned with an error")
			}
			for _, e := range []error{ErrTruncated, ErrUnsupportedLink, ErrNotIP, ErrNotUDP, ErrFragment, ErrBadIP, ErrBadUDP} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("error %v is not a sentinel", err)
		}
		if d.Src.Addr().Is4() != d.Dst.Addr().Is4() {
			t.Fatalf("mixed address families %v %v", d.Src, d.Dst)
		}
		switch LinkType(link) {
		case LinkIPv4, LinkIPv6:
			return // appendFrame has no wrapper for these; they share LinkRaw's path
		}
		re := appendFrame(nil, LinkType(link), binary.LittleEndian, appendIPUDP(nil, d.Src, d.Dst, d.Payload))
		d2, err := DecodeUDP(LinkType(link), re)
		if err != nil || d2.Src != d.Src || d2.Dst != d.Dst || !bytes.Equal(d2.Payload, d.Payload) {
			t.Fatalf("round trip: %+v %v, want %+v", d2, err, d)
		}
	})
}

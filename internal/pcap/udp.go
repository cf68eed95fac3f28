package pcap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"
)

// Header sizes of the link and network layers decoded here.
const (
	ethernetHeaderSize = 14
	vlanTagSize        = 4
	// MaxVLANTags is the number of stacked 802.1Q tags skipped in Ethernet frames.
	MaxVLANTags      = 2
	nullHeaderSize   = 4
	sllHeaderSize    = 16
	sll2HeaderSize   = 20
	ipv4MinHeaderLen = 20
	ipv6HeaderLen    = 40
	udpHeaderLen     = 8
)

// Protocol numbers.
const (
	etherTypeIPv4 = 0x0800
	etherTypeIPv6 = 0x86dd
	etherTypeVLAN = 0x8100
	etherTypeQinQ = 0x88a8
	protoUDP      = 17
)

// Sentinel errors of DecodeUDP. ErrNotIP and ErrNotUDP describe well-formed
// frames that simply carry something else; the others describe malformed ones.
var (
	// ErrUnsupportedLink reports a link type DecodeUDP does not know.
	ErrUnsupportedLink = errors.New("pcap: unsupported link type")
	// ErrNotIP reports a frame whose link layer carries neither IPv4 nor IPv6.
	ErrNotIP = errors.New("pcap: not an IP frame")
	// ErrNotUDP reports an IP packet that does not carry UDP (or carries IPv6
	// extension headers, which are not followed).
	ErrNotUDP = errors.New("pcap: not a UDP packet")
	// ErrFragment reports a fragment of a fragmented IPv4 datagram.
	ErrFragment = errors.New("pcap: IP fragment")
	// ErrBadIP reports an inconsistent IP header.
	ErrBadIP = errors.New("pcap: bad IP header")
	// ErrBadUDP reports an inconsistent UDP header.
	ErrBadUDP = errors.New("pcap: bad UDP header")
)

// Datagram is a decoded UDP datagram; Payload aliases the frame.
type Datagram struct {
	// Src and Dst are the sender's and receiver's address and port.
	Src, Dst netip.AddrPort
	// Payload is the UDP payload.
	Payload []byte
}

// DecodeUDP decodes one captured frame of the given link type down to its UDP
// payload. Checksums are not verified (loopback captures often carry
// offloaded, unfilled checksums). Trailing link-layer padding after the IP
// packet is ignored.
func DecodeUDP(link LinkType, frame []byte) (Datagram, error) {
	ip, err := linkPayload(link, frame)
	if err != nil {
		return Datagram{}, err
	}
	return decodeIP(ip)
}

// linkPayload strips the link-layer header and returns the IP packet.
func linkPayload(link LinkType, frame []byte) ([]byte, error) {
	switch link {
	case LinkEthernet:
		if len(frame) < ethernetHeaderSize {
			return nil, fmt.Errorf("%w: ethernet header", ErrTruncated)
		}
		et := binary.BigEndian.Uint16(frame[12:])
		rest := frame[ethernetHeaderSize:]
		for range MaxVLANTags {
			if et != etherTypeVLAN && et != etherTypeQinQ {
				break
			}
			if len(rest) < vlanTagSize {
				return nil, fmt.Errorf("%w: VLAN tag", ErrTruncated)
			}
			et = binary.BigEndian.Uint16(rest[2:])
			rest = rest[vlanTagSize:]
		}
		return byEtherType(et, rest)
	case LinkNull, LinkLoop:
		if len(frame) < nullHeaderSize {
			return nil, fmt.Errorf("%w: loopback header", ErrTruncated)
		}
		// The family is in host order for NULL and network order for LOOP;
		// accept either, since a file may come from a host of either order.
		fam := binary.LittleEndian.Uint32(frame)
		if fam > 0xffff {
			fam = binary.BigEndian.Uint32(frame)
		}
		rest := frame[nullHeaderSize:]
		switch fam {
		case 2: // AF_INET everywhere
			return ipVersion(4, rest)
		case 10, 24, 28, 30: // AF_INET6 on Linux, NetBSD/OpenBSD, FreeBSD, Darwin
			return ipVersion(6, rest)
		}
		return nil, fmt.Errorf("%w: address family %d", ErrNotIP, fam)
	case LinkLinuxSLL:
		if len(frame) < sllHeaderSize {
			return nil, fmt.Errorf("%w: SLL header", ErrTruncated)
		}
		return byEtherType(binary.BigEndian.Uint16(frame[14:]), frame[sllHeaderSize:])
	case LinkLinuxSLL2:
		if len(frame) < sll2HeaderSize {
			return nil, fmt.Errorf("%w: SLL2 header", ErrTruncated)
		}
		return byEtherType(binary.BigEndian.Uint16(frame[0:]), frame[sll2HeaderSize:])
	case LinkRaw:
		if len(frame) == 0 {
			return nil, fmt.Errorf("%w: empty raw frame", ErrTruncated)
		}
		return frame, nil
	case LinkIPv4:
		return ipVersion(4, frame)
	case LinkIPv6:
		return ipVersion(6, frame)
	}
	return nil, fmt.Errorf("%w: %v", ErrUnsupportedLink, link)
}

func byEtherType(et uint16, rest []byte) ([]byte, error) {
	switch et {
	case etherTypeIPv4:
		return ipVersion(4, rest)
	case etherTypeIPv6:
		return ipVersion(6, rest)
	}
	return nil, fmt.Errorf("%w: ethertype %#04x", ErrNotIP, et)
}

// ipVersion checks that the link layer's claim matches the IP version nibble.
func ipVersion(want byte, ip []byte) ([]byte, error) {
	if len(ip) == 0 {
		return nil, fmt.Errorf("%w: IP header", ErrTruncated)
	}
	if v := ip[0] >> 4; v != want {
		return nil, fmt.Errorf("%w: version %d where link layer says %d", ErrBadIP, v, want)
	}
	return ip, nil
}

// decodeIP decodes an IPv4 or IPv6 packet carrying UDP.
func decodeIP(ip []byte) (Datagram, error) {
	if len(ip) == 0 {
		return Datagram{}, fmt.Errorf("%w: IP header", ErrTruncated)
	}
	var src, dst netip.Addr
	var udp []byte
	switch ip[0] >> 4 {
	case 4:
		if len(ip) < ipv4MinHeaderLen {
			return Datagram{}, fmt.Errorf("%w: IPv4 header", ErrTruncated)
		}
		ihl := int(ip[0]&0x0f) * 4
		total := int(binary.BigEndian.Uint16(ip[2:]))
		if ihl < ipv4MinHeaderLen || total < ihl {
			return Datagram{}, fmt.Errorf("%w: header length %d, total length %d", ErrBadIP, ihl, total)
		}
		if len(ip) < total {
			return Datagram{}, fmt.Errorf("%w: IPv4 packet of %d bytes, have %d", ErrTruncated, total, len(ip))
		}
		if ff := binary.BigEndian.Uint16(ip[6:]); ff&0x3fff != 0 { // MF flag or offset
			return Datagram{}, ErrFragment
		}
		if ip[9] != protoUDP {
			return Datagram{}, fmt.Errorf("%w: protocol %d", ErrNotUDP, ip[9])
		}
		src = netip.AddrFrom4([4]byte(ip[12:16]))
		dst = netip.AddrFrom4([4]byte(ip[16:20]))
		udp = ip[ihl:total]
	case 6:
		if len(ip) < ipv6HeaderLen {
			return Datagram{}, fmt.Errorf("%w: IPv6 header", ErrTruncated)
		}
		plen := int(binary.BigEndian.Uint16(ip[4:]))
		if len(ip)-ipv6HeaderLen < plen {
			return Datagram{}, fmt.Errorf("%w: IPv6 payload of %d bytes, have %d", ErrTruncated, plen, len(ip)-ipv6HeaderLen)
		}
		if ip[6] != protoUDP {
			return Datagram{}, fmt.Errorf("%w: next header %d", ErrNotUDP, ip[6])
		}
		src = netip.AddrFrom16([16]byte(ip[8:24]))
		dst = netip.AddrFrom16([16]byte(ip[24:40]))
		udp = ip[ipv6HeaderLen : ipv6HeaderLen+plen]
	default:
		return Datagram{}, fmt.Errorf("%w: version %d", ErrBadIP, ip[0]>>4)
	}
	if len(udp) < udpHeaderLen {
		return Datagram{}, fmt.Errorf("%w: UDP header", ErrTruncated)
	}
	ulen := int(binary.BigEndian.Uint16(udp[4:]))
	if ulen < udpHeaderLen || ulen > len(udp) {
		return Datagram{}, fmt.Errorf("%w: length %d in %d bytes", ErrBadUDP, ulen, len(udp))
	}
	return Datagram{
		Src:     netip.AddrPortFrom(src, binary.BigEndian.Uint16(udp[0:])),
		Dst:     netip.AddrPortFrom(dst, binary.BigEndian.Uint16(udp[2:])),
		Payload: udp[udpHeaderLen:ulen:ulen],
	}, nil
}

// Packet is a UDP datagram read from a capture file.
type Packet struct {
	// Index is the 0-based record number in the file (frame number − 1).
	Index int
	// Time is the capture timestamp.
	Time time.Time
	Datagram
}

// ReadUDP reads every record of a capture file and returns the UDP datagrams
// in file order. Frames that are well-formed but carry no UDP (ErrNotIP,
// ErrNotUDP) and IPv4 fragments are skipped; any other problem is an error
// naming the record.
func ReadUDP(data []byte) ([]Packet, error) {
	r, err := NewReader(data)
	if err != nil {
		return nil, err
	}
	var out []Packet
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		d, err := DecodeUDP(r.LinkType(), rec.Data)
		switch {
		case err == nil:
			out = append(out, Packet{Index: i, Time: rec.Time, Datagram: d})
		case errors.Is(err, ErrNotIP), errors.Is(err, ErrNotUDP), errors.Is(err, ErrFragment):
		default:
			return out, fmt.Errorf("record %d: %w", i, err)
		}
	}
}

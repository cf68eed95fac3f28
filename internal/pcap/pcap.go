// Package pcap reads classic libpcap capture files (not pcapng) and decodes
// the UDP datagrams they hold. It is a test tool: the capture-proof tests and
// fuzz seeders use it to replay traffic recorded from the reference programs.
//
// The reader works on a byte slice holding the whole file and never copies:
// every returned slice aliases the input. Malformed input yields an error
// (one of the sentinel errors below, possibly wrapped), never a panic.
package pcap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// Bounds of the reader.
const (
	// FileHeaderSize is the size of the classic pcap global header.
	FileHeaderSize = 24
	// RecordHeaderSize is the size of the per-record header.
	RecordHeaderSize = 16
	// MaxRecordSize is the largest captured length of one record accepted
	// (the largest snap length libpcap uses, 256 KiB).
	MaxRecordSize = 262144
)

// File magic numbers (as read in the file's own byte order).
const (
	magicMicro = 0xa1b2c3d4 // microsecond timestamps
	magicNano  = 0xa1b23c4d // nanosecond timestamps
)

// Sentinel errors.
var (
	// ErrTruncated reports input that ends inside a header or record.
	ErrTruncated = errors.New("pcap: truncated")
	// ErrBadMagic reports a file that does not start with a classic pcap magic.
	ErrBadMagic = errors.New("pcap: bad magic")
	// ErrBadVersion reports a file header version other than 2.x.
	ErrBadVersion = errors.New("pcap: unsupported version")
	// ErrRecordTooLarge reports a record whose captured length exceeds MaxRecordSize.
	ErrRecordTooLarge = errors.New("pcap: record too large")
	// ErrBadRecord reports an inconsistent record header (captured length
	// above the original length, or a sub-second timestamp out of range).
	ErrBadRecord = errors.New("pcap: bad record header")
)

// LinkType is the data link type of a capture (the LINKTYPE_* registry value).
type LinkType uint16

// Link types understood by DecodeUDP.
const (
	// LinkNull is LINKTYPE_NULL: BSD loopback, 4-byte address family in the
	// capturing host's byte order.
	LinkNull LinkType = 0
	// LinkEthernet is LINKTYPE_ETHERNET (also used by Linux for "lo").
	LinkEthernet LinkType = 1
	// LinkRaw is LINKTYPE_RAW: the frame starts with the IP header.
	LinkRaw LinkType = 101
	// LinkLoop is LINKTYPE_LOOP: OpenBSD loopback, address family in network byte order.
	LinkLoop LinkType = 108
	// LinkLinuxSLL is LINKTYPE_LINUX_SLL, the Linux "cooked" header (16 bytes).
	LinkLinuxSLL LinkType = 113
	// LinkIPv4 is LINKTYPE_IPV4: raw IPv4.
	LinkIPv4 LinkType = 228
	// LinkIPv6 is LINKTYPE_IPV6: raw IPv6.
	LinkIPv6 LinkType = 229
	// LinkLinuxSLL2 is LINKTYPE_LINUX_SLL2, the version 2 cooked header (20 bytes).
	LinkLinuxSLL2 LinkType = 276
)

// String returns the short libpcap name of the link type.
func (l LinkType) String() string {
	switch l {
	case LinkNull:
		return "NULL"
	case LinkEthernet:
		return "EN10MB"
	case LinkRaw:
		return "RAW"
	case LinkLoop:
		return "LOOP"
	case LinkLinuxSLL:
		return "LINUX_SLL"
	case LinkIPv4:
		return "IPV4"
	case LinkIPv6:
		return "IPV6"
	case LinkLinuxSLL2:
		return "LINUX_SLL2"
	}
	return fmt.Sprintf("LinkType(%d)", uint16(l))
}

// Record is one captured frame.
type Record struct {
	// Time is the capture timestamp (UTC).
	Time time.Time
	// OrigLen is the frame's length on the wire; it exceeds len(Data) when the
	// capture truncated the frame to the snap length.
	OrigLen int
	// Data is the captured frame; it aliases the reader's input.
	Data []byte
}

// Truncated reports whether the capture holds less than the whole frame.
func (r *Record) Truncated() bool { return len(r.Data) < r.OrigLen }

// Reader iterates over the records of a classic pcap file held in memory.
type Reader struct {
	data    []byte
	off     int
	order   binary.ByteOrder
	nano    bool
	snapLen uint32
	link    LinkType
	err     error
}

// NewReader parses the file header of data and returns a reader positioned at
// the first record. data must stay unchanged while records are in use.
func NewReader(data []byte) (*Reader, error) {
	if len(data) < FileHeaderSize {
		return nil, fmt.Errorf("%w: file header needs %d bytes, have %d", ErrTruncated, FileHeaderSize, len(data))
	}
	r := &Reader{data: data, off: FileHeaderSize}
	switch {
	case binary.LittleEndian.Uint32(data) == magicMicro:
		r.order = binary.LittleEndian
	case binary.BigEndian.Uint32(data) == magicMicro:
		r.order = binary.BigEndian
	case binary.LittleEndian.Uint32(data) == magicNano:
		r.order, r.nano = binary.LittleEndian, true
	case binary.BigEndian.Uint32(data) == magicNano:
		r.order, r.nano = binary.BigEndian, true
	default:
		return nil, fmt.Errorf("%w: % x", ErrBadMagic, data[:4])
	}
	if major := r.order.Uint16(data[4:]); major != 2 {
		return nil, fmt.Errorf("%w: %d.%d", ErrBadVersion, major, r.order.Uint16(data[6:]))
	}
	r.snapLen = r.order.Uint32(data[16:])
	// The upper 16 bits of the link type field carry FCS information and
	// reserved bits; the link type proper is the low 16 bits.
	r.link = LinkType(r.order.Uint32(data[20:]) & 0xffff)
	return r, nil
}

// LinkType returns the data link type declared in the file header.
func (r *Reader) LinkType() LinkType { return r.link }

// SnapLen returns the snap length declared in the file header.
func (r *Reader) SnapLen() int { return int(r.snapLen) }

// NanoTimestamps reports whether the file stores nanosecond timestamps.
func (r *Reader) NanoTimestamps() bool { return r.nano }

// Next returns the next record. It returns io.EOF after the last record and a
// sticky error if the input is malformed; trailing garbage shorter than a
// record header is reported as ErrTruncated.
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
	}
	return rec, err
}

func (r *Reader) next() (Record, error) {
	rest := r.data[r.off:]
	if len(rest) == 0 {
		return Record{}, io.EOF
	}
	if len(rest) < RecordHeaderSize {
		return Record{}, fmt.Errorf("%w: record header at offset %d", ErrTruncated, r.off)
	}
	sec := r.order.Uint32(rest[0:])
	frac := r.order.Uint32(rest[4:])
	inclLen := r.order.Uint32(rest[8:])
	origLen := r.order.Uint32(rest[12:])
	if inclLen > MaxRecordSize {
		return Record{}, fmt.Errorf("%w: %d bytes at offset %d", ErrRecordTooLarge, inclLen, r.off)
	}
	if inclLen > origLen {
		return Record{}, fmt.Errorf("%w: captured %d > original %d at offset %d", ErrBadRecord, inclLen, origLen, r.off)
	}
	var nsec int64
	if r.nano {
		if frac >= 1e9 {
			return Record{}, fmt.Errorf("%w: nanoseconds %d at offset %d", ErrBadRecord, frac, r.off)
		}
		nsec = int64(frac)
	} else {
		if frac >= 1e6 {
			return Record{}, fmt.Errorf("%w: microseconds %d at offset %d", ErrBadRecord, frac, r.off)
		}
		nsec = int64(frac) * 1000
	}
	if uint64(len(rest)-RecordHeaderSize) < uint64(inclLen) {
		return Record{}, fmt.Errorf("%w: record at offset %d needs %d bytes, have %d", ErrTruncated, r.off, inclLen, len(rest)-RecordHeaderSize)
	}
	end := RecordHeaderSize + int(inclLen)
	rec := Record{
		Time:    time.Unix(int64(sec), nsec).UTC(),
		OrigLen: int(origLen),
		Data:    rest[RecordHeaderSize:end:end],
	}
	r.off += end
	return rec, nil
}

package capturetest

// An independent, deliberately simple reference decoder for the 0.7 wire
// format and the snapshot delta chain, written from the protocol facts the
// package docs cite (net.md A1, A2, A4) and sharing no code with netproto or
// snap. The capture tests compare the real
// packages against it, so a disagreement points at one side or the other.

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

var errRef = errors.New("reference decoder")

// refHuff is a Huffman tree built from the code table in
// testdata/huffman_codes.txt ("byte:bits" with bits in emission order; the
// same codes netproto's TestHuffmanCodeTable pins), not from the frequency
// table netproto builds its tree from.
type refHuff struct {
	child [][2]int32 // internal nodes; values >= 0 are nodes, < 0 are leaves -1-symbol
	codes [257]string
}

const refEOF = 256

var loadRefHuff = sync.OnceValues(func() (*refHuff, error) {
	text, err := os.ReadFile("testdata/huffman_codes.txt")
	if err != nil {
		return nil, err
	}
	h := &refHuff{child: [][2]int32{{0, 0}}}
	n := 0
	for _, f := range strings.Fields(string(text)) {
		sym, code, ok := strings.Cut(f, ":")
		if !ok {
			return nil, fmt.Errorf("bad code entry %q", f)
		}
		s := refEOF
		if sym != "EOF" {
			v, err := strconv.ParseUint(sym, 16, 8)
			if err != nil {
				return nil, err
			}
			s = int(v)
		}
		h.codes[s] = code
		node := int32(0)
		for i, c := range code {
			bit := c - '0'
			if i == len(code)-1 {
				h.child[node][bit] = int32(-1 - s)
				break
			}
			if h.child[node][bit] == 0 {
				h.child = append(h.child, [2]int32{0, 0})
				h.child[node][bit] = int32(len(h.child) - 1)
			}
			node = h.child[node][bit]
		}
		n++
	}
	if n != 257 {
		return nil, fmt.Errorf("code table has %d entries, want 257", n)
	}
	return h, nil
})

// decode reads LSB-first bits until EOF; it fails if the bits run out first
// or the output would exceed max bytes.
func (h *refHuff) decode(src []byte, max int) ([]byte, error) {
	var out []byte
	node := int32(0)
	for i := 0; i < len(src)*8; i++ {
		bit := src[i/8] >> (i % 8) & 1
		next := h.child[node][bit]
		if next >= 0 {
			if next == 0 {
				return nil, fmt.Errorf("%w: huffman: no such code", errRef)
			}
			node = next
			continue
		}
		sym := int(-1 - next)
		if sym == refEOF {
			return out, nil
		}
		if len(out) == max {
			return nil, fmt.Errorf("%w: huffman: output over %d bytes", errRef, max)
		}
		out = append(out, byte(sym))
		node = 0
	}
	return nil, fmt.Errorf("%w: huffman: input ends before EOF", errRef)
}

// encode emits all codes and EOF, then one more byte with the 0-7 leftover bits.
func (h *refHuff) encode(src []byte) []byte {
	var out []byte
	var cur byte
	nbits := 0
	emit := func(code string) {
		for _, c := range code {
			if c == '1' {
				cur |= 1 << nbits
			}
			nbits++
			if nbits == 8 {
				out = append(out, cur)
				cur, nbits = 0, 0
			}
		}
	}
	for _, b := range src {
		emit(h.codes[b])
	}
	emit(h.codes[refEOF])
	return append(out, cur)
}

// refInt decodes one varint.
func refInt(b []byte) (int32, int, error) {
	if len(b) == 0 {
		return 0, 0, fmt.Errorf("%w: varint: empty", errRef)
	}
	sign := b[0] >> 6 & 1
	v := uint32(b[0] & 0x3f)
	n := 1
	more := b[0]&0x80 != 0
	for shift := 6; more && n < 5; shift += 7 {
		if n == len(b) {
			return 0, 0, fmt.Errorf("%w: varint: truncated", errRef)
		}
		v |= uint32(b[n]&0x7f) << shift
		more = b[n]&0x80 != 0
		n++
	}
	if sign == 1 {
		v = ^v
	}
	return int32(v), n, nil
}

// refUnpacker reads varints and raw bytes with a sticky error.
type refUnpacker struct {
	b   []byte
	err error
}

func (u *refUnpacker) int() int32 {
	if u.err != nil {
		return 0
	}
	v, n, err := refInt(u.b)
	if err != nil {
		u.err = err
		return 0
	}
	u.b = u.b[n:]
	return v
}

func (u *refUnpacker) raw(n int32) []byte {
	if u.err != nil {
		return nil
	}
	if n < 0 || int(n) > len(u.b) {
		u.err = fmt.Errorf("%w: raw(%d) with %d bytes left", errRef, n, len(u.b))
		return nil
	}
	r := u.b[:n]
	u.b = u.b[n:]
	return r
}

// 0.7 packet flags (header byte 0 >> 2).
const (
	refFlagControl  = 1
	refFlagResend   = 2
	refFlagCompress = 4
	refFlagConnless = 8
)

// refPacket is a parsed 0.7 datagram.
type refPacket struct {
	connless  bool
	flags     int
	ack       int
	numChunks int
	token     uint32
	respToken uint32 // connless only
	raw       []byte // payload as captured (compressed if flags has refFlagCompress)
	payload   []byte // payload after decompression
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func refParsePacket(h *refHuff, d []byte) (refPacket, error) {
	var p refPacket
	if len(d) < 7 || len(d) > 1400 {
		return p, fmt.Errorf("%w: packet size %d", errRef, len(d))
	}
	if d[0]>>6 != 0 {
		return p, fmt.Errorf("%w: reserved bits in % x", errRef, d[0])
	}
	p.flags = int(d[0] >> 2)
	if p.flags&refFlagConnless != 0 {
		if len(d) < 9 || d[0]&3 != 1 {
			return p, fmt.Errorf("%w: connless header % x", errRef, d[:min(len(d), 9)])
		}
		p.connless = true
		p.token, p.respToken = be32(d[1:]), be32(d[5:])
		p.raw, p.payload = d[9:], d[9:]
		return p, nil
	}
	p.ack = int(d[0]&3)<<8 | int(d[1])
	p.numChunks = int(d[2])
	p.token = be32(d[3:])
	p.raw, p.payload = d[7:], d[7:]
	if p.flags&refFlagCompress != 0 {
		out, err := h.decode(p.raw, 1391)
		if err != nil {
			return p, err
		}
		p.payload = out
	}
	if p.flags&refFlagControl != 0 && len(p.payload) == 0 {
		return p, fmt.Errorf("%w: control packet without control byte", errRef)
	}
	return p, nil
}

// refChunk is one chunk of a data packet.
type refChunk struct {
	flags int // 1 vital, 2 resend
	seq   int
	data  []byte
}

func refChunks(p refPacket) ([]refChunk, error) {
	var out []refChunk
	b := p.payload
	for i := 0; i < p.numChunks; i++ {
		if len(b) < 2 {
			return out, fmt.Errorf("%w: chunk %d header", errRef, i)
		}
		c := refChunk{flags: int(b[0] >> 6)}
		size := int(b[0]&0x3f)<<6 | int(b[1]&0x3f)
		hdr := 2
		if c.flags&1 != 0 {
			if len(b) < 3 {
				return out, fmt.Errorf("%w: chunk %d vital header", errRef, i)
			}
			c.seq = int(b[1]&0xc0)<<2 | int(b[2])
			hdr = 3
		}
		if len(b) < hdr+size {
			return out, fmt.Errorf("%w: chunk %d size %d with %d bytes left", errRef, i, size, len(b)-hdr)
		}
		c.data = b[hdr : hdr+size]
		b = b[hdr+size:]
		out = append(out, c)
	}
	return out, nil
}

// 0.7 system message ids used below (spec A3.1).
const (
	refMsgSnap       = 6
	refMsgSnapEmpty  = 7
	refMsgSnapSingle = 8
)

// refSnapMsg is a decoded SNAP / SNAPEMPTY / SNAPSINGLE message.
type refSnapMsg struct {
	id        int
	tick      int32
	deltaDiff int32
	numParts  int32
	part      int32
	crc       int32
	data      []byte
}

func refParseSnapMsg(id int, body []byte) (refSnapMsg, error) {
	u := refUnpacker{b: body}
	m := refSnapMsg{id: id, numParts: 1}
	m.tick = u.int()
	m.deltaDiff = u.int()
	switch id {
	case refMsgSnap:
		m.numParts = u.int()
		m.part = u.int()
		fallthrough
	case refMsgSnapSingle:
		m.crc = u.int()
		m.data = u.raw(u.int())
	}
	if u.err != nil {
		return m, u.err
	}
	if m.numParts < 1 || m.numParts > 64 || m.part < 0 || m.part >= m.numParts || len(m.data) > 900 {
		return m, fmt.Errorf("%w: snapshot part %d/%d of %d bytes", errRef, m.part, m.numParts, len(m.data))
	}
	return m, nil
}

// refSizes7 holds the 0.7 static item sizes (types 0..22, spec A4.7/A5.3).
var refSizes7 = [23]int32{0, 10, 6, 5, 3, 3, 3, 2, 4, 15, 22, 3, 4, 58, 5, 32, 2, 2, 2, 2, 3, 3, 7}

// refSnap is a snapshot as a map from key to item data.
type refSnap map[uint32][]int32

func (s refSnap) crc() int32 {
	var sum int32
	for _, d := range s {
		for _, v := range d {
			sum += v
		}
	}
	return sum
}

func (s refSnap) keys() []uint32 {
	ks := make([]uint32, 0, len(s))
	for k := range s {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// refApplyDelta decodes the varint bytes of a delta and applies it to base.
func refApplyDelta(base refSnap, data []byte) (refSnap, error) {
	var ints []int32
	for b := data; len(b) > 0; {
		v, n, err := refInt(b)
		if err != nil {
			return nil, err
		}
		ints = append(ints, v)
		b = b[n:]
	}
	next := func() (int32, error) {
		if len(ints) == 0 {
			return 0, fmt.Errorf("%w: delta truncated", errRef)
		}
		v := ints[0]
		ints = ints[1:]
		return v, nil
	}
	var hdr [3]int32
	for i := range hdr {
		v, err := next()
		if err != nil {
			return nil, err
		}
		hdr[i] = v
	}
	numDel, numUpd := hdr[0], hdr[1]
	if numDel < 0 || numUpd < 0 || int(numDel) > len(ints) {
		return nil, fmt.Errorf("%w: delta header %v", errRef, hdr)
	}
	deleted := make(map[uint32]bool)
	for range numDel {
		k, _ := next()
		deleted[uint32(k)] = true
	}
	out := make(refSnap)
	for k, d := range base {
		if !deleted[k] {
			out[k] = d
		}
	}
	for range numUpd {
		typ, err := next()
		if err != nil {
			return nil, err
		}
		id, err := next()
		if err != nil {
			return nil, err
		}
		if typ < 0 || typ > 0xffff || id < 0 || id > 0xffff {
			return nil, fmt.Errorf("%w: item %d:%d", errRef, typ, id)
		}
		// A static size of 0 (type 0) means "no static size": the size
		// field is present, as for types outside the table.
		var size int32
		if int(typ) < len(refSizes7) {
			size = refSizes7[typ]
		}
		if size == 0 {
			if size, err = next(); err != nil {
				return nil, err
			}
		}
		if size < 0 || int(size) > len(ints) {
			return nil, fmt.Errorf("%w: item %d:%d size %d", errRef, typ, id, size)
		}
		key := uint32(typ)<<16 | uint32(id)
		d := make([]int32, size)
		copy(d, ints[:size])
		ints = ints[size:]
		if old, ok := base[key]; ok {
			for i := range d {
				if i < len(old) {
					d[i] += old[i]
				}
			}
		}
		out[key] = d
	}
	if len(ints) != 0 {
		return nil, fmt.Errorf("%w: %d ints after the delta", errRef, len(ints))
	}
	return out, nil
}

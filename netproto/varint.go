package netproto

// AppendInt appends the varint ("packed int", spec A2.2) encoding of v to dst:
// the first byte holds a continuation bit, the sign flag and 6 value bits,
// later bytes a continuation bit and 7 value bits; negative values are stored
// as their complement. At most MaxVarintSize bytes are appended.
func AppendInt(dst []byte, v int32) []byte {
	u := uint32(v)
	var sign byte
	if v < 0 {
		sign = 0x40
		u = ^u
	}
	b := sign | byte(u&0x3f)
	u >>= 6
	for u != 0 {
		dst = append(dst, b|0x80)
		b = byte(u & 0x7f)
		u >>= 7
	}
	return append(dst, b)
}

// ParseInt decodes one varint from the start of b and returns its value and
// length. It reads like the Teeworlds 0.7.5 decoder: overlong encodings are
// accepted, the fifth byte always ends the value whatever its bit 7, and all
// seven of its value bits are used at shift 27, so the bits that land beyond
// 32 are lost (ff ff ff ff ff decodes to 0, bf ff ff ff 7f to -1; a decoder
// that keeps only 4 bits of the fifth byte would give math.MinInt32 and
// math.MaxInt32). Canonical encodings, the only ones AppendInt and the 0.7.5
// client produce, decode the same either way. It returns ErrTruncated when b
// ends inside the value.
func ParseInt(b []byte) (v int32, n int, err error) {
	if len(b) == 0 {
		return 0, 0, ErrTruncated
	}
	c := b[0]
	sign := c >> 6 & 1
	u := uint32(c & 0x3f)
	n = 1
	for shift := uint(6); c&0x80 != 0 && n < MaxVarintSize; shift += 7 {
		if n >= len(b) {
			return 0, 0, ErrTruncated
		}
		c = b[n]
		n++
		u |= uint32(c&0x7f) << shift // uint32: bits shifted past 31 are dropped
	}
	u ^= -uint32(sign)
	return int32(u), n, nil
}

// VarintLen returns the number of bytes AppendInt would write for v.
func VarintLen(v int32) int {
	u := uint32(v)
	if v < 0 {
		u = ^u
	}
	n := 1
	for u >>= 6; u != 0; u >>= 7 {
		n++
	}
	return n
}

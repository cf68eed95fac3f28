package snap

// StrToInts packs s into dst the way snapshot items carry strings (net.md
// A2.3 StrToInts, A5.8, B5.3): 4 bytes per int, first byte in the most
// significant position, each byte stored as byte+128 (mod 256), unused
// positions as 0+128, and the lowest byte of the last int forced to 0 as the
// terminator. So len(dst) ints carry at most 4·len(dst)−1 bytes; longer
// strings are cut (bytes, not runes). It returns dst.
func StrToInts(dst []int32, s string) []int32 {
	idx := 0
	for i := range dst {
		var buf [4]byte
		for c := 0; c < 4 && idx < len(s); c++ {
			buf[c] = s[idx]
			idx++
		}
		dst[i] = int32(uint32(buf[0]+128)<<24 | uint32(buf[1]+128)<<16 |
			uint32(buf[2]+128)<<8 | uint32(buf[3]+128))
	}
	if len(dst) > 0 {
		dst[len(dst)-1] &^= 0xff
	}
	return dst
}

// AppendIntsToStr decodes ints packed by StrToInts and appends the string
// bytes (up to the first NUL, at most 4·len(ints)−1 bytes) to dst.
func AppendIntsToStr(dst []byte, ints []int32) []byte {
	for i, v := range ints {
		for c := range 4 {
			if i == len(ints)-1 && c == 3 {
				return dst // forced terminator position
			}
			b := byte(uint32(v)>>(24-8*c)) - 128
			if b == 0 {
				return dst
			}
			dst = append(dst, b)
		}
	}
	return dst
}

// IntsToStr decodes ints packed by StrToInts into a string.
func IntsToStr(ints []int32) string {
	var buf [64]byte
	return string(AppendIntsToStr(buf[:0], ints))
}

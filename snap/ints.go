package snap

import "twserver/netproto"

// AppendInts appends the varint encoding of every int (net.md A2.2, the
// "varint compression" of an int array) to dst.
func AppendInts(dst []byte, ints []int32) []byte {
	for _, v := range ints {
		dst = netproto.AppendInt(dst, v)
	}
	return dst
}

// ParseInts decodes the varints of b until b is exhausted, appending them to
// dst. It fails with the netproto error of a truncated varint, and with
// ErrSnapTooLarge if b holds more than max ints.
func ParseInts(dst []int32, b []byte, max int) ([]int32, error) {
	n := 0
	for len(b) > 0 {
		if n == max {
			return dst, ErrSnapTooLarge
		}
		v, k, err := netproto.ParseInt(b)
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
		b = b[k:]
		n++
	}
	return dst, nil
}

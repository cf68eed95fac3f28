package teehist

import "twserver/netproto"

// parseInt decodes one Teeworlds varint (netproto.ParseInt) with this
// package's sentinel errors.
func parseInt(b []byte) (int32, int, error) {
	v, n, err := netproto.ParseInt(b)
	if err != nil {
		return 0, 0, ErrTruncated
	}
	return v, n, nil
}

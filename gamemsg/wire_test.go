package gamemsg

import "errors"

// This file holds a small, obviously-correct packer and unpacker (net.md
// A2.2/A2.3) so the tests do not depend on another package being finished.

var errTestTruncated = errors.New("test unpacker: truncated")

type testPacker struct{ b []byte }

func (p *testPacker) AddInt(v int32) {
	var sign byte
	u := uint32(v)
	if v < 0 {
		sign = 0x40
		u = ^u
	}
	first := sign | byte(u&0x3f)
	u >>= 6
	if u == 0 {
		p.b = append(p.b, first)
		return
	}
	p.b = append(p.b, first|0x80)
	for {
		c := byte(u & 0x7f)
		u >>= 7
		if u == 0 {
			p.b = append(p.b, c)
			return
		}
		p.b = append(p.b, c|0x80)
	}
}

func (p *testPacker) AddString(s string) {
	p.b = append(p.b, s...)
	p.b = append(p.b, 0)
}

type testUnpacker struct {
	b   []byte
	err error
}

func (u *testUnpacker) GetInt() int32 {
	if u.err != nil {
		return 0
	}
	if len(u.b) == 0 {
		u.err = errTestTruncated
		return 0
	}
	c := u.b[0]
	sign := c & 0x40
	v := uint32(c & 0x3f)
	i := 1
	shift := uint(6)
	for more := c&0x80 != 0; more && i < 5; shift += 7 {
		if i >= len(u.b) {
			u.err = errTestTruncated
			return 0
		}
		c = u.b[i]
		i++
		v |= uint32(c&0x7f) << shift
		more = c&0x80 != 0
	}
	u.b = u.b[i:]
	if sign != 0 {
		v = ^v
	}
	return int32(v)
}

func (u *testUnpacker) GetIntOrDefault(d int32) int32 {
	if u.err == nil && len(u.b) == 0 {
		return d
	}
	return u.GetInt()
}

func (u *testUnpacker) GetString() string {
	if u.err != nil || len(u.b) == 0 {
		return ""
	}
	for i, c := range u.b {
		if c == 0 {
			s := []byte(u.b[:i])
			for j, x := range s {
				if x < 32 && x != '\t' && x != '\n' && x != '\r' {
					s[j] = ' '
				}
			}
			u.b = u.b[i+1:]
			return string(s)
		}
	}
	u.err = errTestTruncated
	return ""
}

func (u *testUnpacker) Err() error { return u.err }

// plainReader hides GetIntOrDefault.
type plainReader struct{ u *testUnpacker }

func (p plainReader) GetInt() int32     { return p.u.GetInt() }
func (p plainReader) GetString() string { return p.u.GetString() }
func (p plainReader) Err() error        { return p.u.Err() }

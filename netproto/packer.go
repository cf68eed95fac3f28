package netproto

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Packer builds a message body into a fixed buffer of PackerBufferSize bytes
// (spec A2.3). The first failing Add sets a sticky error and every later Add
// is ignored; check Err once after packing. The zero value is ready to use.
type Packer struct {
	buf [PackerBufferSize]byte
	n   int
	err error
}

// Reset empties the packer and clears its error.
func (p *Packer) Reset() { p.n, p.err = 0, nil }

// Bytes returns the packed bytes; the slice aliases the packer's buffer and is
// valid until the next Reset or Add.
func (p *Packer) Bytes() []byte { return p.buf[:p.n] }

// Len returns the number of packed bytes.
func (p *Packer) Len() int { return p.n }

// Err returns the sticky error (ErrBufferFull) or nil.
func (p *Packer) Err() error { return p.err }

// AddInt appends v as a varint.
func (p *Packer) AddInt(v int32) {
	if p.err != nil {
		return
	}
	if p.n+VarintLen(v) > len(p.buf) {
		p.err = ErrBufferFull
		return
	}
	p.n = len(AppendInt(p.buf[:p.n], v))
}

// AddMsgHeader appends the message header varint (id<<1 | system).
func (p *Packer) AddMsgHeader(id int32, system bool) {
	h := id << 1
	if system {
		h |= 1
	}
	p.AddInt(h)
}

// AddString appends s followed by a NUL byte, without a length limit.
func (p *Packer) AddString(s string) { p.AddStringLimit(s, 0) }

// AddStringLimit appends at most limit bytes of s (limit <= 0: unlimited)
// followed by a NUL byte. Truncation happens at a UTF-8 code point boundary.
// A NUL inside s ends the string early, as it would for the receiver.
func (p *Packer) AddStringLimit(s string, limit int) {
	if p.err != nil {
		return
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if limit > 0 && len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	if p.n+len(s)+1 > len(p.buf) {
		p.err = ErrBufferFull
		return
	}
	p.n += copy(p.buf[p.n:], s)
	p.buf[p.n] = 0
	p.n++
}

// AddRaw appends b verbatim.
func (p *Packer) AddRaw(b []byte) {
	if p.err != nil {
		return
	}
	if p.n+len(b) > len(p.buf) {
		p.err = ErrBufferFull
		return
	}
	p.n += copy(p.buf[p.n:], b)
}

// SanitizeMode selects how Unpacker.GetStringMode cleans a received string.
type SanitizeMode uint8

// String sanitizing modes (spec A2.3, CUnpacker::SANITIZE...). They combine with |.
const (
	// Sanitize replaces bytes below 32 except tab, newline and carriage return with a space (SANITIZE).
	Sanitize SanitizeMode = 1 << iota
	// SanitizeCC replaces every byte below 32 with a space (SANITIZE_CC).
	SanitizeCC
	// SkipStartWhitespaces drops leading Unicode whitespace (SKIP_START_WHITESPACES).
	SkipStartWhitespaces
)

// Unpacker reads message fields from a byte slice (spec A2.3). Errors are
// sticky: after the first failure every getter returns a zero value and Err
// reports ErrTruncated, ErrBadString or ErrNegative. The unpacker never reads
// outside the slice given to Reset.
type Unpacker struct {
	b   []byte
	off int
	err error
}

// Reset starts reading b from its beginning and clears the error.
func (u *Unpacker) Reset(b []byte) { u.b, u.off, u.err = b, 0, nil }

// Err returns the sticky error or nil.
func (u *Unpacker) Err() error { return u.err }

// Remaining returns the number of unread bytes.
func (u *Unpacker) Remaining() int { return len(u.b) - u.off }

// Rest returns the unread bytes (aliasing the input) and consumes them.
func (u *Unpacker) Rest() []byte {
	if u.err != nil {
		return nil
	}
	r := u.b[u.off:]
	u.off = len(u.b)
	return r
}

func (u *Unpacker) fail(err error) {
	if u.err == nil {
		u.err = err
	}
}

// GetInt reads one varint; at the end of the input it fails with ErrTruncated.
func (u *Unpacker) GetInt() int32 {
	if u.err != nil {
		return 0
	}
	v, n, err := ParseInt(u.b[u.off:])
	if err != nil {
		u.fail(err)
		return 0
	}
	u.off += n
	return v
}

// GetIntOrDefault returns d when the input is exhausted (an optional trailing
// field), otherwise GetInt.
func (u *Unpacker) GetIntOrDefault(d int32) int32 {
	if u.err == nil && u.off >= len(u.b) {
		return d
	}
	return u.GetInt()
}

// GetMsgHeader reads a message header and splits it into id and system flag.
func (u *Unpacker) GetMsgHeader() (id int32, system bool) {
	h := u.GetInt()
	return h >> 1, h&1 != 0
}

// GetStringBytes reads a NUL-terminated string, sanitizes it in place with
// mode (Sanitize when mode is 0) and returns it without the NUL, aliasing the
// input. Like the reference, a read at the very end returns an empty string
// without error; a missing NUL is ErrBadString.
func (u *Unpacker) GetStringBytes(mode SanitizeMode) []byte {
	if u.err != nil || u.off >= len(u.b) {
		return nil
	}
	rest := u.b[u.off:]
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		u.fail(ErrBadString)
		return nil
	}
	s := rest[:i:i]
	u.off += i + 1
	if mode == 0 {
		mode = Sanitize
	}
	for j, c := range s {
		if c < 32 && (mode&SanitizeCC != 0 || (c != '\t' && c != '\n' && c != '\r')) {
			s[j] = ' '
		}
	}
	if mode&SkipStartWhitespaces != 0 {
		s = SkipWhitespace(s)
	}
	return s
}

// GetString reads a string with the default Sanitize mode. Sanitizing edits the
// input buffer in place; the returned string is a copy.
func (u *Unpacker) GetString() string { return string(u.GetStringBytes(Sanitize)) }

// GetStringMode reads a string sanitized with mode (see GetStringBytes).
func (u *Unpacker) GetStringMode(mode SanitizeMode) string { return string(u.GetStringBytes(mode)) }

// GetRaw returns the next n bytes, aliasing the input. A negative n fails with
// ErrNegative, a short input with ErrTruncated.
func (u *Unpacker) GetRaw(n int) []byte {
	if u.err != nil {
		return nil
	}
	if n < 0 {
		u.fail(ErrNegative)
		return nil
	}
	if n > len(u.b)-u.off {
		u.fail(ErrTruncated)
		return nil
	}
	r := u.b[u.off : u.off+n : u.off+n]
	u.off += n
	return r
}

// IsSkipWhitespace reports whether r counts as leading whitespace for
// SkipStartWhitespaces (code points <= 0x20 and the Unicode blanks and
// invisible formatting characters the reference skips).
func IsSkipWhitespace(r rune) bool {
	switch {
	case r <= 0x20, r == 0xa0, r == 0x34f,
		r >= 0x2000 && r <= 0x200f,
		r >= 0x2028 && r <= 0x202f,
		r >= 0x205f && r <= 0x2064,
		r >= 0x206a && r <= 0x206f,
		r == 0x3000,
		r >= 0xfe00 && r <= 0xfe0f,
		r == 0xfeff,
		r >= 0xfff9 && r <= 0xfffc:
		return true
	}
	return false
}

// SkipWhitespace returns s without its leading whitespace (IsSkipWhitespace).
func SkipWhitespace(s []byte) []byte {
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r == utf8.RuneError && n <= 1 {
			return s
		}
		if !IsSkipWhitespace(r) {
			return s
		}
		s = s[n:]
	}
	return s
}

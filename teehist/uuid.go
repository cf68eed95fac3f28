package teehist

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
)

// UUID is a 16-byte RFC 4122 UUID in its usual (big-endian) byte order, the
// form in which teehistorian files store them.
type UUID [16]byte

// Namespace is the Teeworlds UUID namespace e05ddaaa-c4e6-4cfb-b642-5d48e80c0029
// from which every teehistorian name UUID is derived (version 3).
var Namespace = UUID{0xe0, 0x5d, 0xda, 0xaa, 0xc4, 0xe6, 0x4c, 0xfb, 0xb6, 0x42, 0x5d, 0x48, 0xe8, 0x0c, 0x00, 0x29}

// NameUUID returns the version-3 UUID of name in the Teeworlds namespace:
// MD5 over the namespace bytes and the name, with version and variant bits set.
func NameUUID(name string) UUID {
	h := md5.New()
	h.Write(Namespace[:])
	h.Write([]byte(name))
	var u UUID
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x30
	u[8] = u[8]&0x3f | 0x80
	return u
}

// RandomUUID returns a version-4 UUID with bytes from r (crypto/rand.Reader
// for game UUIDs).
func RandomUUID(r io.Reader) (UUID, error) {
	var u UUID
	if _, err := io.ReadFull(r, u[:]); err != nil {
		return UUID{}, err
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u, nil
}

// String formats u as 8-4-4-4-12 lower-case hex.
func (u UUID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], u[10:16])
	return string(b[:])
}

// ErrBadUUID is returned by ParseUUID for a malformed UUID string.
var ErrBadUUID = errors.New("teehist: malformed uuid")

// ParseUUID parses the 8-4-4-4-12 hex form.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, ErrBadUUID
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	if _, err := hex.Decode(u[:], []byte(h)); err != nil {
		return UUID{}, ErrBadUUID
	}
	return u, nil
}

// MagicName is the name whose UUID starts every teehistorian file.
const MagicName = "teehistorian@ddnet.tw"

// Magic is the UUID of MagicName, 699db17b-8efb-34ff-b1d8-da6f60c15dd1.
var Magic = NameUUID(MagicName)

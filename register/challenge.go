package register

import (
	"bytes"
	"errors"
)

// ChallengeMagic starts the payload of the master's challenge packet
// (SERVERBROWSE_CHALLENGE); the 0.6 and 0.7 forms differ only in the
// connless header in front of it (net.md B6.6).
var ChallengeMagic = []byte("\xff\xff\xff\xffchal")

// MaxChallengeToken bounds the challenge token accepted from the master
// (DDNet keeps it in 128 bytes with the NUL).
const MaxChallengeToken = 127

// Errors of ParseChallenge.
var (
	ErrNotChallenge   = errors.New("register: not a challenge packet for this server")
	ErrBadChallenge   = errors.New("register: malformed challenge packet")
	ErrUnknownProto   = errors.New("register: challenge for an unknown protocol")
	ErrTokenTooLong   = errors.New("register: challenge token too long")
	errEmptyChallenge = errors.New("register: empty challenge token")
)

// ParseChallenge parses a challenge payload ("\xff\xff\xff\xffchal" +
// "<uuid>:<protocol>\0<token>\0") addressed to the challenge UUID uuid. The
// token aliases payload. Payloads for another UUID give ErrNotChallenge.
func ParseChallenge(payload []byte, uuid string) (Protocol, []byte, error) {
	rest, ok := bytes.CutPrefix(payload, ChallengeMagic)
	if !ok {
		return 0, nil, ErrNotChallenge
	}
	if len(rest) < len(uuid)+1 || string(rest[:len(uuid)]) != uuid || rest[len(uuid)] != ':' {
		return 0, nil, ErrNotChallenge
	}
	rest = rest[len(uuid)+1:]
	proto, rest, ok := bytes.Cut(rest, []byte{0})
	if !ok {
		return 0, nil, ErrBadChallenge
	}
	token, _, ok := bytes.Cut(rest, []byte{0})
	if !ok {
		return 0, nil, ErrBadChallenge
	}
	p, ok := ParseProtocol(string(proto))
	if !ok {
		return 0, nil, ErrUnknownProto
	}
	if len(token) > MaxChallengeToken {
		return 0, nil, ErrTokenTooLong
	}
	if len(token) == 0 {
		return 0, nil, errEmptyChallenge
	}
	for _, c := range token { // it goes back in a header
		if c <= ' ' || c > '~' {
			return 0, nil, ErrBadChallenge
		}
	}
	return p, token, nil
}

// AppendChallenge appends a challenge payload as the master sends it
// (without the connless header). Used by test masters.
func AppendChallenge(dst []byte, challengeSecret, token string) []byte {
	dst = append(dst, ChallengeMagic...)
	dst = append(dst, challengeSecret...)
	dst = append(dst, 0)
	dst = append(dst, token...)
	return append(dst, 0)
}

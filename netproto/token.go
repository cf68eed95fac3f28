package netproto

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
	"sync/atomic"
	"time"
)

// TokenSecret is the key of a TokenGen.
type TokenSecret [16]byte

// TokenGen issues and checks the server's 0.7 tokens (spec A1.4) without
// per-peer state: a token is a keyed hash (SipHash-2-4) of the peer's IP
// address (port ignored, IPv4-mapped IPv6 treated as IPv4) under a secret
// that the owner rotates every SeedRotation. Tokens made with the current or
// the previous secret are accepted, so a token lives 16-32 s. TokenNone is
// never issued. Token, Check and their 0.6 forms may be called from any
// goroutine, also while the owner rotates (the two secrets are swapped as
// one value); RotateDue and Rotate are the owner's. A TokenGen is not
// copied.
type TokenGen struct {
	keys      atomic.Pointer[tokenKeys]
	rotatedAt time.Duration // owner only
}

// tokenKeys are a TokenGen's current and previous secrets, never modified
// once stored.
type tokenKeys struct{ cur, prev TokenSecret }

// NewTokenGen returns a generator using secret since now; the previous
// secret starts out equal to it.
func NewTokenGen(secret TokenSecret, now time.Duration) *TokenGen {
	g := &TokenGen{rotatedAt: now}
	g.keys.Store(&tokenKeys{cur: secret, prev: secret})
	return g
}

// RotateDue reports whether SeedRotation has passed since the last rotation.
func (g *TokenGen) RotateDue(now time.Duration) bool { return now-g.rotatedAt >= SeedRotation }

// Rotate makes secret current and keeps the current one as previous. The
// caller supplies fresh random bytes (e.g. from crypto/rand).
func (g *TokenGen) Rotate(secret TokenSecret, now time.Duration) {
	g.keys.Store(&tokenKeys{cur: secret, prev: g.keys.Load().cur})
	g.rotatedAt = now
}

// Token returns the 0.7 token for a peer address under the current secret.
func (g *TokenGen) Token(ip netip.Addr) Token { return token7(&g.keys.Load().cur, ip) }

// Check reports whether tok was issued for ip under the current or previous secret.
func (g *TokenGen) Check(ip netip.Addr, tok Token) bool {
	if tok == TokenNone {
		return false
	}
	k := g.keys.Load()
	return tok == token7(&k.cur, ip) || tok == token7(&k.prev, ip)
}

// Token6 returns the DDNet 0.6 security token for ip (spec B2.2; sent
// little-endian), never 0 or 0xFFFFFFFF. It uses the current secret.
func (g *TokenGen) Token6(ip netip.Addr) uint32 { return token6(&g.keys.Load().cur, ip) }

// Check6 reports whether tok is the 0.6 token of ip under the current or previous secret.
func (g *TokenGen) Check6(ip netip.Addr, tok uint32) bool {
	k := g.keys.Load()
	return tok == token6(&k.cur, ip) || tok == token6(&k.prev, ip)
}

// VanillaToken6 returns the token of ip for DDNet's vanilla 0.6
// anti-spoof handshake (spec B2.2): carried as a snapshot tick, so it is
// positive and leaves room for tick+1. It uses the current secret.
func (g *TokenGen) VanillaToken6(ip netip.Addr) int32 { return vanilla6(&g.keys.Load().cur, ip) }

// CheckVanilla6 reports whether tick is the vanilla token of ip under the
// current or previous secret.
func (g *TokenGen) CheckVanilla6(ip netip.Addr, tick int32) bool {
	k := g.keys.Load()
	return tick == vanilla6(&k.cur, ip) || tick == vanilla6(&k.prev, ip)
}

func vanilla6(key *TokenSecret, ip netip.Addr) int32 {
	return int32(tokenHash(key, ip, 60)&0x3fffffff) | 1
}

func token7(key *TokenSecret, ip netip.Addr) Token {
	t := Token(tokenHash(key, ip, 7))
	if t == TokenNone {
		t--
	}
	return t
}

func token6(key *TokenSecret, ip netip.Addr) uint32 {
	t := uint32(tokenHash(key, ip, 6))
	if t == 0 || t == 0xFFFFFFFF {
		t = 1
	}
	return t
}

// tokenHash hashes the 16-byte form of ip plus a dialect byte.
func tokenHash(key *TokenSecret, ip netip.Addr, dialect byte) uint32 {
	var msg [17]byte
	a := ip.Unmap().As16()
	copy(msg[:], a[:])
	msg[16] = dialect
	h := sipHash24(binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:]), msg[:])
	return uint32(h) ^ uint32(h>>32)
}

// sipHash24 is SipHash-2-4 of msg under the key (k0, k1).
func sipHash24(k0, k1 uint64, msg []byte) uint64 {
	v0 := k0 ^ 0x736f6d6570736575
	v1 := k1 ^ 0x646f72616e646f6d
	v2 := k0 ^ 0x6c7967656e657261
	v3 := k1 ^ 0x7465646279746573
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13) ^ v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16) ^ v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21) ^ v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17) ^ v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	n := len(msg)
	for len(msg) >= 8 {
		m := binary.LittleEndian.Uint64(msg)
		v3 ^= m
		round()
		round()
		v0 ^= m
		msg = msg[8:]
	}
	last := uint64(n) << 56
	for i, b := range msg {
		last |= uint64(b) << (8 * i)
	}
	v3 ^= last
	round()
	round()
	v0 ^= last
	v2 ^= 0xff
	round()
	round()
	round()
	round()
	return v0 ^ v1 ^ v2 ^ v3
}

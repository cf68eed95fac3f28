package netproto

import (
	"bytes"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestControlGolden checks the 0.7 handshake bytes of spec Appendix C
// (client token 11223344, server token aabbccdd).
func TestControlGolden(t *testing.T) {
	pad := strings.Repeat(" 00", 508)
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"token request", AppendTokenRequest(nil, 0x11223344), "04 00 00 ff ff ff ff 05 11 22 33 44" + pad},
		{"token reply", AppendTokenResponse(nil, 0x11223344, 0xaabbccdd), "04 00 00 11 22 33 44 05 aa bb cc dd"},
		{"connect", AppendConnect(nil, 0xaabbccdd, 0x11223344), "04 00 00 aa bb cc dd 01 11 22 33 44" + pad},
		{"accept", AppendAccept(nil, 0x11223344), "04 00 00 11 22 33 44 02"},
		{"keepalive ack 1", AppendKeepAlive(nil, 1, 0x11223344), "04 01 00 11 22 33 44 00"},
		{"close server full", AppendClose(nil, 0, 0x11223344, ReasonServerFull),
			"04 00 00 11 22 33 44 04 54 68 69 73 20 73 65 72 76 65 72 20 69 73 20 66 75 6c 6c 00"},
		{"close no reason", AppendClose(nil, 3, 0x11223344, ""), "04 03 00 11 22 33 44 04"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.want)
			if !bytes.Equal(tc.got, want) {
				t.Fatalf("got % x\nwant % x", tc.got, want)
			}
			h, payload, err := ParsePacket(tc.got)
			if err != nil || h.Flags != FlagControl || h.NumChunks != 0 {
				t.Fatalf("parse: %+v %v", h, err)
			}
			if _, err := ParseControl(payload); err != nil {
				t.Fatalf("control: %v", err)
			}
		})
	}
	if n := len(AppendTokenRequest(nil, 1)); n != 520 {
		t.Fatalf("token request is %d bytes, want 520", n)
	}
}

func TestParseControl(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Control
		err  error
	}{
		{"keepalive", "00", Control{Type: CtrlKeepAlive, Token: TokenNone}, nil},
		{"token reply", "05 aa bb cc dd", Control{Type: CtrlToken, Token: 0xaabbccdd}, nil},
		{"token short", "05 aa bb cc", Control{Type: CtrlToken, Token: TokenNone}, nil},
		{"close with reason", "04 68 69 00 ff", Control{Type: CtrlClose, Token: TokenNone, Reason: []byte("hi")}, nil},
		{"close unterminated", "04 68 69", Control{Type: CtrlClose, Token: TokenNone, Reason: []byte("hi")}, nil},
		{"empty", "", Control{}, ErrTruncated},
		{"unknown 3", "03", Control{Type: 3, Token: TokenNone}, ErrBadControl},
		{"unknown ff", "ff 00", Control{Type: 0xff, Token: TokenNone}, ErrBadControl},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseControl(unhex(t, tc.in))
			if !errors.Is(err, tc.err) || got.Type != tc.want.Type || got.Token != tc.want.Token || !bytes.Equal(got.Reason, tc.want.Reason) {
				t.Fatalf("got %+v, %v; want %+v, %v", got, err, tc.want, tc.err)
			}
		})
	}
	c, _ := ParseControl(AppendConnect(nil, 1, 2)[PacketHeaderSize:])
	if !c.Padded || c.Token != 2 {
		t.Fatalf("connect: %+v", c)
	}
	c, _ = ParseControl(unhex(t, "05 00 00 00 02"))
	if c.Padded {
		t.Fatal("short token request counted as padded")
	}
	req := make([]byte, TokenRequestDataSize)
	req[0] = CtrlToken
	if c, _ = ParseControl(req); !c.Padded {
		t.Fatal("512-byte token request not padded")
	}
	if c, _ = ParseControl(req[:TokenRequestDataSize-1]); c.Padded {
		t.Fatal("511-byte token request counted as padded")
	}
}

func TestSanitizeCloseReason(t *testing.T) {
	if got := SanitizeCloseReason([]byte("a\x01b\xc3\xa9")); got != "a bC)" {
		t.Fatalf("got %q", got)
	}
	long := bytes.Repeat([]byte("x"), 300)
	if got := SanitizeCloseReason(long); len(got) != MaxCloseReason {
		t.Fatalf("len %d", len(got))
	}
}

func TestSipHashVector(t *testing.T) {
	var key [16]byte
	msg := make([]byte, 15)
	for i := range key {
		key[i] = byte(i)
	}
	for i := range msg {
		msg[i] = byte(i)
	}
	k := TokenSecret(key)
	got := sipHash24(leUint64(k[:8]), leUint64(k[8:]), msg)
	if got != 0xa129ca6149be45e5 {
		t.Fatalf("siphash = %#x", got)
	}
	if got := sipHash24(leUint64(k[:8]), leUint64(k[8:]), nil); got != 0x726fdb47dd0e0e31 {
		t.Fatalf("siphash(empty) = %#x", got)
	}
}

func leUint64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func TestTokenGen(t *testing.T) {
	a := netip.MustParseAddr("127.0.0.1")
	a6 := netip.MustParseAddr("::ffff:127.0.0.1")
	b := netip.MustParseAddr("127.0.0.2")
	g := NewTokenGen(TokenSecret{9}, 0)
	ta := g.Token(a)
	if ta == TokenNone || g.Token(a6) != ta || g.Token(b) == ta {
		t.Fatalf("tokens %x %x %x", ta, g.Token(a6), g.Token(b))
	}
	if !g.Check(a, ta) || g.Check(b, ta) || g.Check(a, TokenNone) {
		t.Fatal("check")
	}
	if g.RotateDue(SeedRotation-time.Millisecond) || !g.RotateDue(SeedRotation) {
		t.Fatal("RotateDue")
	}
	// The 0.6 tokens of the first secret: a DDNet client answers the
	// CONNECTACCEPT it got before a rotation with that token, a vanilla
	// client acknowledges the tick it got.
	t6a, va := g.Token6(a), g.VanillaToken6(a)
	g.Rotate(TokenSecret{10}, SeedRotation)
	if !g.Check(a, ta) {
		t.Fatal("previous secret not accepted")
	}
	if !g.Check6(a, t6a) || !g.CheckVanilla6(a, va) {
		t.Fatal("0.6 token of the previous secret not accepted")
	}
	if g.Token6(a) == t6a || g.VanillaToken6(a) == va {
		t.Fatal("0.6 token unchanged after rotation")
	}
	tb := g.Token(a)
	if tb == ta {
		t.Fatal("token unchanged after rotation")
	}
	g.Rotate(TokenSecret{11}, 2*SeedRotation)
	if g.Check(a, ta) || !g.Check(a, tb) {
		t.Fatal("secret older than one rotation accepted")
	}
	if g.Check6(a, t6a) || g.CheckVanilla6(a, va) {
		t.Fatal("0.6 token of a secret older than one rotation accepted")
	}
	t6 := g.Token6(a)
	if t6 == 0 || t6 == 0xffffffff || !g.Check6(a, t6) || g.Check6(b, t6) || uint32(g.Token(a)) == t6 {
		t.Fatalf("token6 %x", t6)
	}
	// Tokens are deterministic in the secret and never TokenNone.
	g2 := NewTokenGen(TokenSecret{11}, 0)
	if g2.Token(a) != g.Token(a) {
		t.Fatal("not deterministic")
	}
	for i := range 10000 {
		ip := netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 1})
		if g.Token(ip) == TokenNone {
			t.Fatal("TokenNone issued")
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { g.Check(a, ta) }); allocs != 0 {
		t.Fatalf("%v allocs", allocs)
	}
}

package edge

import (
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"twserver/netproto"
)

// rejectInputs are the unverified datagrams of `twload flood`, one kind
// each: a padded token request (over the reply budget), a CONNECT and a
// connless info request with wrong tokens, and garbage.
func rejectInputs() map[string][]byte {
	junk := make([]byte, 700)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range junk {
		junk[i] = byte(r.Uint32())
	}
	junk[0] = 0x40 // not connless, not control: an unknown peer's data packet
	return map[string][]byte{
		"token":   netproto.AppendTokenRequest(nil, 0x1234),
		"connect": netproto.AppendConnect(nil, 0x5678, 0x1234),
		"info": netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: 0x5678, ResponseToken: 9},
			append(append([]byte(nil), magicGetInfo...), 1)),
		"garbage": junk,
	}
}

// newRejectEdge returns an edge whose reader budgets are spent, so every
// flood datagram is rejected in Screen.
func newRejectEdge() (*Edge, *netproto.TokenGen) {
	s := newTestEdge(&countWriter{})
	s.Budget = NewBudget(1, 1, 1)
	now := time.Now()
	s.Budget.Token.AllowN(now, 1)
	s.Budget.Info.AllowN(now, 1)
	s.Budget.Connect.AllowN(now, 1)
	return s, netproto.NewTokenGen(netproto.TokenSecret{1}, 0)
}

// TestRejectPathAllocs: rejecting a flood datagram of any kind allocates
// nothing and never hands it to the loop.
func TestRejectPathAllocs(t *testing.T) {
	s, tokens := newRejectEdge()
	var out [netproto.MaxPacketSize]byte
	from := netip.MustParseAddrPort("127.20.0.1:4000")
	for kind, b := range rejectInputs() {
		now := time.Now()
		if a := testing.AllocsPerRun(200, func() {
			if _, pass := s.Screen(b, from, tokens, now, out[:0]); pass {
				t.Fatalf("%s handed to the loop", kind)
			}
		}); a != 0 {
			t.Errorf("rejecting %s allocates %.1f times", kind, a)
		}
	}
}

// BenchmarkRejectPath measures the reader's work per rejected flood
// datagram (Screen only; the receive system call is not included).
func BenchmarkRejectPath(b *testing.B) {
	for kind, pkt := range rejectInputs() {
		b.Run(kind, func(b *testing.B) {
			s, tokens := newRejectEdge()
			var out [netproto.MaxPacketSize]byte
			from := netip.MustParseAddrPort("127.20.0.1:4000")
			now := time.Now()
			b.ReportAllocs()
			for b.Loop() {
				s.Screen(pkt, from, tokens, now, out[:0])
			}
		})
	}
}

package server

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"twserver/config"
	"twserver/edge"
	"twserver/netproto"
)

// hookRecorder installs the master hooks on s and records what reaches them.
type hookRecorder struct {
	challenges [][]byte
	packets    []struct {
		token   uint32
		payload []byte
	}
	known bool // what masterPacket answers
}

func (h *hookRecorder) install(s *Server) {
	s.Master().Challenge = func(p []byte) bool {
		h.challenges = append(h.challenges, bytes.Clone(p))
		return true
	}
	s.Master().Packet = func(_ netip.AddrPort, token uint32, p []byte) bool {
		h.packets = append(h.packets, struct {
			token   uint32
			payload []byte
		}{token, bytes.Clone(p)})
		return h.known
	}
}

const testGlobalToken = netproto.Token(0x0a0b0c0d)

func newHookedServer(t testing.TB) (*Server, *countConn, *hookRecorder) {
	conn := &countConn{sent: map[netip.AddrPort]int{}}
	s := newServerInGame(t, config.Default(), conn, 0)
	s.edge.Master.Token = testGlobalToken
	s.edge.Budget = edge.NewBudget(100, 100, 100)
	h := &hookRecorder{known: true}
	h.install(s)
	return s, conn, h
}

func screenOnce(s *Server, tokens *netproto.TokenGen, from netip.AddrPort, data []byte) bool {
	var out [netproto.MaxPacketSize]byte
	_, pass := s.edge.Screen(data, from, tokens, time.Now(), out[:0])
	return pass
}

// TestMasterRouting: the master's packets reach the hooks only in the forms
// the protocol has (net.md A6.5, B6.6), and the global token opens nothing else.
func TestMasterRouting(t *testing.T) {
	master := netip.MustParseAddrPort("127.0.0.1:8300")
	tokens := netproto.NewTokenGen(netproto.TokenSecret{9}, 0)
	valid := tokens.Token(master.Addr())
	chal := []byte("\xff\xff\xff\xffchal01234567-89ab-4def-8123-456789abcdef:tw0.7/ipv4\x00tok\x00")
	conn7 := func(tok netproto.Token, payload []byte) []byte {
		return netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: tok, ResponseToken: 0x55}, payload)
	}
	for _, tc := range []struct {
		name                string
		data                []byte
		challenges, packets int
	}{
		{"0.7 challenge with the global token", conn7(testGlobalToken, chal), 1, 0},
		{"0.7 challenge with another token", conn7(0x01020304, chal), 0, 0},
		{"0.6 challenge", append([]byte("\xff\xff\xff\xff\xff\xff"), chal...), 1, 0},
		{"info request with the global token", conn7(testGlobalToken, append(bytes.Clone([]byte(edge.MagicGetInfo)), 1)), 0, 0},
		{"fw?? with the global token", conn7(testGlobalToken, []byte("\xff\xff\xff\xfffw??")), 0, 1},
		{"fwok with a valid token", conn7(valid, []byte("\xff\xff\xff\xfffwok")), 0, 1},
		{"fw?? with a bad token", conn7(0x01020304, []byte("\xff\xff\xff\xfffw??")), 0, 0},
		{"token reply to the global token", netproto.AppendTokenResponse(nil, testGlobalToken, 0x77), 0, 1},
		{"token reply to another token", netproto.AppendTokenResponse(nil, 0x01020304, 0x77), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, conn, h := newHookedServer(t)
			if screenOnce(s, tokens, master, tc.data) {
				t.Error("handed to the game loop")
			}
			if len(h.challenges) != tc.challenges || len(h.packets) != tc.packets {
				t.Errorf("challenges %d packets %d, want %d %d", len(h.challenges), len(h.packets), tc.challenges, tc.packets)
			}
			for _, c := range h.challenges {
				if !bytes.Equal(c, chal) {
					t.Errorf("challenge payload %q", c)
				}
			}
			if tc.name == "token reply to the global token" && (h.packets[0].token != 0x77 || h.packets[0].payload != nil) {
				t.Errorf("token reply reached the hook as %+v", h.packets[0])
			}
			if n := conn.sent[master]; n != 0 {
				t.Errorf("the reader answered %d bytes", n)
			}
		})
	}
}

// FuzzMasterPackets: arbitrary datagrams with the master hooks installed
// reach them only in their documented shapes, and nothing is answered with
// more bytes than it carried.
func FuzzMasterPackets(f *testing.F) {
	chal := []byte("\xff\xff\xff\xffchal01234567-89ab-4def-8123-456789abcdef:tw0.6/ipv4\x00t\x00")
	f.Add(netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: testGlobalToken}, chal))
	f.Add(append([]byte("\xff\xff\xff\xff\xff\xff"), chal...))
	f.Add(netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: testGlobalToken}, []byte("\xff\xff\xff\xfffwer")))
	f.Add(netproto.AppendTokenResponse(nil, testGlobalToken, 5))
	from := netip.MustParseAddrPort("203.0.113.9:8300")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, conn, h := newHookedServer(t)
		screenOnce(s, netproto.NewTokenGen(netproto.TokenSecret{3}, 0), from, data)
		for _, c := range h.challenges {
			if !bytes.HasPrefix(c, []byte("\xff\xff\xff\xffchal")) {
				t.Fatalf("challenge hook got %q", c)
			}
		}
		for _, p := range h.packets {
			ok := p.payload == nil
			for _, m := range []string{"\xff\xff\xff\xfffw??", "\xff\xff\xff\xfffwok", "\xff\xff\xff\xfffwer"} { // FWCHECK, FWOK, FWERROR
				ok = ok || bytes.HasPrefix(p.payload, []byte(m))
			}
			if !ok {
				t.Fatalf("master hook got %q", p.payload)
			}
		}
		if n := conn.sent[from]; n > len(data) && !(isVanillaConnect6(data) && n <= maxVanillaConnectReply) {
			t.Fatalf("%d bytes answered to %d", n, len(data))
		}
	})
}

// maxVanillaConnectReply bounds what one vanilla 0.6 CONNECT may be answered
// with: the accept and the anti-spoof reply (edge6.go). It is the one reply
// larger than its request, as in DDNet, so it has its own budgets
// (edge.VanillaRepliesPerSecond, edge.VanillaAntispoofPerSecond; tested in edge6_test.go).
const maxVanillaConnectReply = 2 * netproto.MaxPacketSize

// isVanillaConnect6 reports whether b is a 0.6 control packet carrying CONNECT.
func isVanillaConnect6(b []byte) bool {
	h, payload, err := netproto.ParsePacket6(b)
	if err != nil || h.Flags&netproto.Flag6Control == 0 {
		return false
	}
	ctl, err := netproto.ParseControl6(payload)
	return err == nil && ctl.Type == netproto.Ctrl6Connect
}

package session

import (
	"fmt"
	"testing"
	"time"

	"twserver/netproto"
)

// TestRefusal: the version of each dialect, then the password.
func TestRefusal(t *testing.T) {
	for _, tc := range []struct {
		d                     netproto.Dialect
		version, pw, serverPw string
		want                  string
	}{
		{netproto.Dialect7, NetVersion, "", "", ""},
		{netproto.Dialect7, NetVersion, "x", "", ""},
		{netproto.Dialect6, NetVersion6, "", "", ""},
		{netproto.DialectDDNet, NetVersion6, "pw", "pw", ""},
		{netproto.Dialect7, NetVersion6, "", "", "Wrong version. Server is running '" + NetVersion + "' and client '" + NetVersion6 + "'"},
		{netproto.DialectDDNet, NetVersion, "", "", "Wrong version. Server is running '" + NetVersion6 + "' and client '" + NetVersion + "'"},
		{netproto.Dialect7, NetVersion, "", "pw", "Wrong password"},
		{netproto.Dialect6, NetVersion6, "PW", "pw", "Wrong password"},
		{netproto.Dialect7, "0.7 x", "", "pw", "Wrong version. Server is running '" + NetVersion + "' and client '0.7 x'"},
	} {
		if got := Refusal(tc.d, tc.version, tc.pw, tc.serverPw); got != tc.want {
			t.Errorf("Refusal(%v, %q, %q, %q) = %q, want %q", tc.d, tc.version, tc.pw, tc.serverPw, got, tc.want)
		}
	}
}

// TestSysHeader: 0.7 ids as they are, 0.6 ids translated, RCON_AUTH_ON/OFF
// as 0.6's status with its two ints, and no 0.6 form for MAP_CHANGE.
func TestSysHeader(t *testing.T) {
	pack := func(f func(p *netproto.Packer)) string {
		var p netproto.Packer
		f(&p)
		return fmt.Sprintf("%x", p.Bytes())
	}
	for _, tc := range []struct {
		d    netproto.Dialect
		id   int32
		ok   bool
		want string
	}{
		{netproto.Dialect7, netproto.NetmsgConReady, true, header(netproto.NetmsgConReady)},
		{netproto.Dialect7, netproto.NetmsgRconAuthOn, true, header(netproto.NetmsgRconAuthOn)},
		{netproto.Dialect6, netproto.NetmsgConReady, true, header(netproto.Netmsg6ConReady)},
		{netproto.DialectDDNet, netproto.NetmsgPingReply, true, header(netproto.Netmsg6PingReply)},
		{netproto.Dialect6, netproto.NetmsgRconAuthOn, true, pack(func(p *netproto.Packer) {
			p.AddMsgHeader(netproto.Netmsg6RconAuthStatus, true)
			p.AddInt(1)
			p.AddInt(1)
		})},
		{netproto.DialectDDNet, netproto.NetmsgRconAuthOff, true, pack(func(p *netproto.Packer) {
			p.AddMsgHeader(netproto.Netmsg6RconAuthStatus, true)
			p.AddInt(0)
			p.AddInt(0)
		})},
		{netproto.Dialect6, netproto.NetmsgMapChange, false, ""},
	} {
		var p netproto.Packer
		ok := SysHeader(tc.d, &p, tc.id)
		if got := fmt.Sprintf("%x", p.Bytes()); ok != tc.ok || got != tc.want {
			t.Errorf("SysHeader(%v, %d) = %s, %v; want %s, %v", tc.d, tc.id, got, ok, tc.want, tc.ok)
		}
	}
}

// TestUniqueName: the 0.6 reference's rule for a requested name.
func TestUniqueName(t *testing.T) {
	for _, tc := range []struct {
		name  string
		taken []string
		req   string
		want  string
	}{
		{"free", []string{"alice"}, "bob", "bob"},
		{"trimmed", []string{"alice"}, "  bob \t", "bob"},
		{"cut to 15 bytes", nil, "abcdefghijklmnopq", "abcdefghijklmno"},
		{"taken", []string{"alice"}, "alice", "(1)alice"},
		{"taken twice", []string{"alice", "(1)alice"}, "alice", "(2)alice"},
		{"empty", nil, " ", "(1)"},
		{"empty, (1) taken", []string{"(1)"}, "", "(2)"},
		{"taken, long", []string{"abcdefghijklmno"}, "abcdefghijklmnopq", "(1)abcdefghijkl"},
		{"taken, cut in UTF-8", []string{"äääääää"}, "äääääää", "(1)ääääää"},
		{"every candidate taken", []string{"a", "(1)a", "(2)a"}, "a", "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			taken := func(n string) bool {
				for _, o := range tc.taken {
					if o == n {
						return true
					}
				}
				return false
			}
			others := len(tc.taken)
			if tc.want == "old" {
				others = 1 // fewer than hold a name: no candidate left
			}
			if got := UniqueName("old", tc.req, others, taken); got != tc.want {
				t.Errorf("UniqueName(%q) = %q, want %q", tc.req, got, tc.want)
			}
		})
	}
}

// TestNameClan: names are trimmed and cut, clans cut, never inside a
// UTF-8 sequence.
func TestNameClan(t *testing.T) {
	if got := Name(" \tnameless one, cut here "); got != "nameless one, c" {
		t.Errorf("Name = %q", got)
	}
	if got := Name("abcdefghijklmn ä"); got != "abcdefghijklmn" {
		t.Errorf("Name = %q", got)
	}
	if got := StartName(" \t", 3); got != "(4)" {
		t.Errorf("StartName of an empty name = %q", got)
	}
	if got := StartName(" bob", 3); got != "bob" {
		t.Errorf("StartName = %q", got)
	}
	if got := Clan("ääääää"); got != "äääää" {
		t.Errorf("Clan = %q", got)
	}
}

// TestRejoin6: a new CONNECT is an offer, the ACCEPT with the slot's
// token within the window a rejoin, anything else the connection's.
func TestRejoin6(t *testing.T) {
	const sec = 0x11223344
	connect := netproto.AppendConnect6(nil, true)
	accept := func(token uint32) []byte {
		return netproto.AppendControl6(nil, 0, netproto.Ctrl6Accept, nil, token, true)
	}
	offered := 10 * time.Second
	for _, tc := range []struct {
		name    string
		b       []byte
		offered time.Duration
		now     time.Duration
		want    Rejoin
	}{
		{"connect", connect, 0, offered, RejoinOffer},
		{"connect again", connect, offered, offered + time.Second, RejoinOffer},
		{"connect without TKEN", netproto.AppendConnect6(nil, false), 0, offered, NoRejoin},
		{"accept", accept(sec), offered, offered + time.Second, RejoinNow},
		{"accept without offer", accept(sec), 0, offered, NoRejoin},
		{"accept after the window", accept(sec), offered, offered + RejoinWindow6, NoRejoin},
		{"accept with another token", accept(sec + 1), offered, offered + time.Second, NoRejoin},
		{"accept with an ack", netproto.AppendControl6(nil, 1, netproto.Ctrl6Accept, nil, sec, true), offered, offered + time.Second, NoRejoin},
		{"keep-alive", netproto.AppendControl6(nil, 0, netproto.Ctrl6KeepAlive, nil, sec, true), offered, offered + time.Second, NoRejoin},
		{"empty", nil, offered, offered, NoRejoin},
	} {
		if got := Rejoin6(tc.b, sec, tc.offered, tc.now); got != tc.want {
			t.Errorf("%s: Rejoin6 = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestStateString: every state has its name, an invalid one says so.
func TestStateString(t *testing.T) {
	want := []string{"empty", "auth", "connecting", "ready", "ingame", "invalid"}
	for i, w := range want {
		if got := State(i).String(); got != w {
			t.Errorf("State(%d) = %q, want %q", i, got, w)
		}
	}
}

func TestSnapRateDue(t *testing.T) {
	tests := []struct {
		rate SnapRate
		tick int32
		want bool
	}{
		{SnapRateInit, 10, true}, {SnapRateInit, 12, false},
		{SnapRateFull, 12, true}, {SnapRateFull, 13, true},
		{SnapRateRecover, 50, true}, {SnapRateRecover, 60, false},
	}
	for _, tt := range tests {
		if got := tt.rate.Due(tt.tick); got != tt.want {
			t.Errorf("%d.Due(%d) = %v", tt.rate, tt.tick, got)
		}
	}
}

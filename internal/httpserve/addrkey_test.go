package httpserve

import (
	"net/netip"
	"testing"
)

// TestAddrKey: an IPv4 address is a key of its own, an IPv4-mapped one
// counts as the IPv4 address, IPv6 addresses count by /64 (a zone
// dropped), and every key is a valid prefix.
func TestAddrKey(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"127.0.0.1", "127.0.0.1", true},
		{"127.0.0.1", "127.0.0.2", false},
		{"::ffff:127.0.0.1", "127.0.0.1", true},
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff::9", true},
		{"2001:db8:1:2::1", "2001:db8:1:3::1", false},
		{"fe80::1%eth0", "fe80::2", true},
	} {
		ka, kb := AddrKey(netip.MustParseAddr(tc.a)), AddrKey(netip.MustParseAddr(tc.b))
		if (ka == kb) != tc.same {
			t.Errorf("AddrKey(%s)=%v, AddrKey(%s)=%v: same=%v, want %v", tc.a, ka, tc.b, kb, ka == kb, tc.same)
		}
		if !ka.IsValid() {
			t.Errorf("AddrKey(%s) is not a valid prefix", tc.a)
		}
	}
}

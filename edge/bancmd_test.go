package edge

import (
	"net/netip"
	"testing"
	"time"
)

func TestRefAddr(t *testing.T) {
	for _, tt := range []struct {
		in       string
		withPort bool
		want     string
	}{
		{"1.2.3.4:8303", true, "1.2.3.4:8303"},
		{"1.2.3.4:8303", false, "1.2.3.4"},
		{"[::1]:50000", true, "[0:0:0:0:0:0:0:1]:50000"},
		{"[2001:db8::ff00:42:8329]:1", false, "[2001:db8:0:0:0:ff00:42:8329]"},
		{"[::ffff:10.0.0.1]:7", true, "10.0.0.1:7"},
	} {
		if got := RefAddr(netip.MustParseAddrPort(tt.in), tt.withPort); got != tt.want {
			t.Errorf("RefAddr(%s, %v) = %q, want %q", tt.in, tt.withPort, got, tt.want)
		}
	}
	for in, want := range map[string]string{
		"1.2.3.4": "1.2.3.4", "1.2.3.4:99": "1.2.3.4", "[0:0:0:0:0:0:0:1]": "::1", "::1": "::1",
		"[2001:db8::1]:5": "2001:db8::1", "::ffff:1.2.3.4": "1.2.3.4", "x": "", "1.2.3": "",
	} {
		got, ok := ParseRefAddr(in)
		if ok != (want != "") || ok && got.String() != want {
			t.Errorf("ParseRefAddr(%q) = %v %v, want %q", in, got, ok, want)
		}
	}
}

func TestBanCommands(t *testing.T) {
	now := time.Unix(1000, 0)
	var l BanList
	ip := netip.MustParseAddr("10.0.0.9")
	if b, text := l.AddChecked(ip, 5, "spam", now); b == nil || text != "banned '10.0.0.9' for 5 minutes (spam)" {
		t.Fatalf("AddChecked = %v %q", b, text)
	}
	if _, text := l.AddChecked(ip, 0, "worse", now); text != "'10.0.0.9' banned for life (worse)" {
		t.Errorf("AddChecked again = %q", text)
	}
	var lines []string
	l.List(now, func(s string) { lines = append(lines, s) })
	if len(lines) != 2 || lines[0] != "#0 '10.0.0.9' banned for life (worse)" || lines[1] != "1 ban" {
		t.Errorf("List = %q", lines)
	}
	if got := l.SaveText(now); got != "ban 10.0.0.9 -1 worse\n" {
		t.Errorf("SaveText = %q", got)
	}
	for arg, want := range map[string]string{
		"3": "unban failed (invalid index)", "1.2.3.4-1.2.3.5": "unban error (address ranges are not supported by twserver)",
		"x": "unban error (invalid network address)", "1.2.3.4": "unban failed (invalid entry)",
	} {
		if got := l.Unban(arg, now); got != want {
			t.Errorf("Unban(%q) = %q, want %q", arg, got, want)
		}
	}
	if got := l.Unban("0", now); got != "unbanned index 0 ('10.0.0.9')" || l.Len() != 0 {
		t.Errorf("Unban(0) = %q, %d left", got, l.Len())
	}
	for target, want := range map[string]string{"": "", "12": "", "1.2.3.4-": "", "a-b": "ban error (address ranges are not supported by twserver)", "zz": "ban error (invalid network address)"} {
		if _, _, _, got := BanTarget(target); got != want {
			t.Errorf("BanTarget(%q) error %q, want %q", target, got, want)
		}
	}
	if isCID, cid, _, _ := BanTarget("12"); !isCID || cid != 12 {
		t.Errorf("BanTarget(12) = %v %d", isCID, cid)
	}
	if BanMinutes(-3) != 0 || BanMinutes(1<<30) != MaxBanMinutes {
		t.Error("BanMinutes does not clamp")
	}
}

package edge

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
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

// holderList is a Holders over a slice.
type holderList []Holder

func (h holderList) Len() int            { return len(h) }
func (h holderList) Holder(i int) Holder { return h[i] }

// TestBanArgsAndChecks: the ban command's arguments with their defaults
// and client ids, and the refusals of a checked ban for each kind of
// caller.
func TestBanArgsAndChecks(t *testing.T) {
	a := netip.MustParseAddr
	slots := holderList{
		{Used: true, Addr: a("10.0.0.1"), Authed: true},
		{Used: true, Addr: a("10.0.0.2")},
		{Used: true, Addr: a("10.0.0.3"), Authed: true},
		{},
	}
	for _, tt := range []struct {
		args    []string
		ip      string
		minutes int
		reason  string
		errText string
	}{
		{args: []string{"1"}, ip: "10.0.0.2", minutes: DefaultBanMinutes, reason: "No reason given"},
		{args: []string{"10.9.8.7", "-4", "spam"}, ip: "10.9.8.7", minutes: 0, reason: "spam"},
		{args: []string{"10.9.8.7", "99999999"}, ip: "10.9.8.7", minutes: MaxBanMinutes, reason: "No reason given"},
		{args: []string{"3"}, errText: "ban error (invalid client id)"},
		{args: []string{"64"}, errText: "ban error (invalid client id)"},
		{args: []string{"10.0.0.1-10.0.0.9"}, errText: "ban error (address ranges are not supported by twserver)"},
		{args: []string{"nonsense"}, errText: "ban error (invalid network address)"},
	} {
		ip, minutes, reason, errText := BanArgs(tt.args, slots)
		if errText != tt.errText || (errText == "" && (ip != a(tt.ip) || minutes != tt.minutes || reason != tt.reason)) {
			t.Errorf("BanArgs(%q) = %v %d %q %q, want %s %d %q %q", tt.args, ip, minutes, reason, errText, tt.ip, tt.minutes, tt.reason, tt.errText)
		}
	}
	now := time.Unix(1e9, 0)
	for _, tt := range []struct {
		by   Banner
		ip   string
		want string // prefix of the text
		ok   bool
	}{
		{Banner{By: 0}, "10.0.0.1", "ban error (you can't ban yourself)", false},
		{Banner{By: 0}, "10.0.0.3", "ban error (command denied)", false},
		{Banner{By: -3, Vote: true}, "10.0.0.3", "ban error (command denied)", false},
		{Banner{By: -2}, "10.0.0.3", "banned '10.0.0.3'", true},
		{Banner{By: 0}, "10.0.0.2", "banned '10.0.0.2'", true},
		{Banner{By: -2}, "127.0.0.1", "ban failed (localhost)", false},
		{Banner{By: -2}, "::1", "ban failed (localhost)", false},
		{Banner{By: -2}, "0.0.0.0", "ban failed (localhost)", false},
	} {
		var l BanList
		b, text := l.BanChecked(tt.by, a(tt.ip), 5, strings.Repeat("r", 300), slots, now)
		if !strings.HasPrefix(text, tt.want) || (b != nil) != tt.ok {
			t.Errorf("BanChecked(%+v, %s) = %v %q, want %q (made %v)", tt.by, tt.ip, b != nil, text, tt.want, tt.ok)
		}
		if b != nil && len(b.Reason) != MaxBanReasonLen {
			t.Errorf("reason of %d bytes kept, want %d", len(b.Reason), MaxBanReasonLen)
		}
	}
}

// TestSaveFile: bans_save writes the ban lines exec reads back, and
// refuses a path the console refused or cannot write.
func TestSaveFile(t *testing.T) {
	now := time.Unix(1e9, 0)
	var l BanList
	l.Add(netip.MustParseAddr("10.0.0.9"), 0, "cheat", now)
	p := filepath.Join(t.TempDir(), "bans.cfg")
	if text := l.SaveFile(p, "bans.cfg", now); text != "saved banlist to 'bans.cfg'" {
		t.Errorf("save: %q", text)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != l.SaveText(now) {
		t.Errorf("file %q %v, want %q", b, err, l.SaveText(now))
	}
	for _, path := range []string{"", filepath.Join(p, "not-a-dir", "x")} {
		if text := l.SaveFile(path, "../x", now); text != "failed to save banlist to '../x'" {
			t.Errorf("SaveFile(%q): %q", path, text)
		}
	}
}

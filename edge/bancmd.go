package edge

import (
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"

	"twserver/gamemsg"
	"twserver/teehist/replay"
)

// Ban minutes of the reference's ban command.
const (
	// DefaultBanMinutes is the ban time when none is given.
	DefaultBanMinutes = 30
	// MaxBanMinutes is the longest ban time the ban command takes (31 days).
	MaxBanMinutes = 31 * 24 * 60
)

// RefAddr formats an address as the reference (net_addr_str): IPv4 dotted,
// IPv6 as eight hexadecimal groups in brackets, with ":port" when withPort.
func RefAddr(ap netip.AddrPort, withPort bool) string {
	ip := ap.Addr().Unmap()
	var s string
	if ip.Is4() {
		b := ip.As4()
		s = fmt.Sprintf("%d.%d.%d.%d", b[0], b[1], b[2], b[3])
	} else {
		b := ip.As16()
		s = fmt.Sprintf("[%x:%x:%x:%x:%x:%x:%x:%x]", uint16(b[0])<<8|uint16(b[1]), uint16(b[2])<<8|uint16(b[3]),
			uint16(b[4])<<8|uint16(b[5]), uint16(b[6])<<8|uint16(b[7]), uint16(b[8])<<8|uint16(b[9]),
			uint16(b[10])<<8|uint16(b[11]), uint16(b[12])<<8|uint16(b[13]), uint16(b[14])<<8|uint16(b[15]))
	}
	if withPort {
		s += fmt.Sprintf(":%d", ap.Port())
	}
	return s
}

// banAddrStr is the reference's address in ban texts (NetToString): the
// IP in single quotes.
func banAddrStr(ip netip.Addr) string { return "'" + RefAddr(netip.AddrPortFrom(ip, 0), false) + "'" }

// ParseRefAddr reads an address as the reference's ban commands take it:
// an IP address, optionally with a port (ignored), IPv6 optionally in brackets.
func ParseRefAddr(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err == nil {
		return a.Unmap(), true
	}
	return netip.Addr{}, false
}

// isIndex reports whether s holds only digits (the reference's
// str_is_number: a client id or a bans line number).
func isIndex(s string) bool { return strings.Trim(s, "0123456789") == "" }

// isRange reports whether s names an address range ("a-b"; a trailing "-"
// is ignored, as the reference).
func isRange(s string) bool { return strings.Contains(strings.TrimSuffix(s, "-"), "-") }

// BanTarget reads the target of the ban command: with only digits a client
// id (isCID, the caller checks cid), else an address. On an error
// it returns the reference's console text in errText.
func BanTarget(target string) (isCID bool, cid int, ip netip.Addr, errText string) {
	switch {
	case isIndex(target):
		return true, replay.IntArg(target), ip, ""
	case isRange(target):
		return false, -1, ip, "ban error (address ranges are not supported by twserver)"
	}
	ip, ok := ParseRefAddr(strings.TrimSuffix(target, "-"))
	if !ok {
		return false, -1, ip, "ban error (invalid network address)"
	}
	return false, -1, ip, ""
}

// Holder is one client slot as the ban console's checks see it.
type Holder struct {
	// Used says the slot holds a client (in game or joining).
	Used bool
	// Addr is the client's IP address, unmapped.
	Addr netip.Addr
	// Authed says the client is rcon-authenticated.
	Authed bool
}

// Holders is the loop's client slots as the ban console sees them.
type Holders interface {
	// Len is the number of slots.
	Len() int
	// Holder returns slot i.
	Holder(i int) Holder
}

// Banner is who makes a console ban: By is an rcon client's id, or a
// negative id for the server console or a vote; Vote says a passed vote
// makes it.
type Banner struct {
	// By is the rcon client's id, negative for none.
	By int
	// Vote says a passed vote makes the ban.
	Vote bool
}

// BanArgs reads the ban command's arguments "ID|IP [minutes] [reason]"
// with the reference's defaults (DefaultBanMinutes, "No reason given"): a
// client id must name a used slot of slots, whose address is banned. On an
// error it returns the reference's console text in errText.
func BanArgs(args []string, slots Holders) (ip netip.Addr, minutes int, reason, errText string) {
	minutes, reason = DefaultBanMinutes, "No reason given"
	if len(args) > 1 {
		minutes = BanMinutes(replay.IntArg(args[1]))
	}
	if len(args) > 2 {
		reason = args[2]
	}
	target := ""
	if len(args) > 0 {
		target = args[0]
	}
	isCID, cid, ip, errText := BanTarget(target)
	switch {
	case errText != "":
		return ip, 0, "", errText
	case isCID:
		if cid < 0 || cid >= slots.Len() || !slots.Holder(cid).Used {
			return ip, 0, "", "ban error (invalid client id)"
		}
		ip = slots.Holder(cid).Addr
	}
	return ip, minutes, reason, ""
}

// BanChecked is the reference's checked ban (CServerBan::BanExt) made by
// by: it refuses to ban the rcon user's own address, an address of another
// authenticated client (for a passed vote, of any authenticated client)
// and the unspecified and loopback addresses 0.0.0.0, 127.0.0.1 and ::1;
// then it bans ip for minutes with reason (cut to MaxBanReasonLen) as
// AddChecked. It returns the ban (nil when refused) and the reference's
// console text.
func (l *BanList) BanChecked(by Banner, ip netip.Addr, minutes int, reason string, slots Holders, now time.Time) (*Ban, string) {
	if by.By >= 0 && by.By < slots.Len() && slots.Holder(by.By).Addr == ip {
		return nil, "ban error (you can't ban yourself)"
	}
	if by.By >= 0 || by.Vote {
		for i := range slots.Len() {
			if h := slots.Holder(i); i != by.By && h.Used && h.Authed && h.Addr == ip {
				return nil, "ban error (command denied)"
			}
		}
	}
	if ip == netip.IPv4Unspecified() || ip == netip.AddrFrom4([4]byte{127, 0, 0, 1}) || ip == netip.IPv6Loopback() {
		return nil, "ban failed (localhost)"
	}
	return l.AddChecked(ip, minutes, gamemsg.TruncUTF8(reason, MaxBanReasonLen), now)
}

// BanMinutes clamps the ban command's minutes to [0, MaxBanMinutes].
func BanMinutes(m int) int { return min(max(m, 0), MaxBanMinutes) }

// AddChecked bans ip for minutes (0 = for life) as the console's ban
// command after the loop's checks, and returns the ban (nil when the list
// is full) and the reference's console text.
func (l *BanList) AddChecked(ip netip.Addr, minutes int, reason string, now time.Time) (*Ban, string) {
	b, updated := l.Add(ip, time.Duration(minutes)*time.Minute, reason, now)
	switch {
	case b == nil:
		return nil, "ban failed (full banlist)"
	case updated:
		return b, BanInfo(banAddrStr(ip)+" banned", b, now)
	}
	return b, BanInfo("banned "+banAddrStr(ip), b, now)
}

// Unban is the console's unban: arg is an address, or (only digits) the
// number of a bans line. It returns the reference's console text.
func (l *BanList) Unban(arg string, now time.Time) string {
	if isIndex(arg) {
		i := replay.IntArg(arg)
		es := l.Entries(now)
		if i < 0 || i >= len(es) {
			return "unban failed (invalid index)"
		}
		l.Remove(es[i].IP)
		return fmt.Sprintf("unbanned index %d (%s)", i, banAddrStr(es[i].IP))
	}
	if isRange(arg) {
		return "unban error (address ranges are not supported by twserver)"
	}
	ip, ok := ParseRefAddr(strings.TrimSuffix(arg, "-"))
	if !ok {
		return "unban error (invalid network address)"
	}
	b := l.Lookup(ip)
	if b == nil {
		return "unban failed (invalid entry)"
	}
	text := BanInfo("unbanned "+banAddrStr(ip), b, now)
	l.Remove(ip)
	return text
}

// List calls out with the console's bans lines as the reference: "#N IP
// banned for ... (reason)" and a count line.
func (l *BanList) List(now time.Time, out func(string)) {
	es := l.Entries(now)
	for i, e := range es {
		out(fmt.Sprintf("#%d %s", i, BanInfo(banAddrStr(e.IP)+" banned", e.Ban, now)))
	}
	word := "bans"
	if len(es) == 1 {
		word = "ban"
	}
	out(fmt.Sprintf("%d %s", len(es), word))
}

// SaveText returns the "ban IP MINUTES REASON" lines of bans_save (-1
// minutes: for life, as the reference writes them) that exec reads back.
func (l *BanList) SaveText(now time.Time) string {
	var b strings.Builder
	for _, e := range l.Entries(now) {
		mins := -1
		if !e.Ban.Until.IsZero() {
			mins = int((e.Ban.Until.Sub(now) + time.Minute - 1) / time.Minute)
		}
		fmt.Fprintf(&b, "ban %s %d %s\n", RefAddr(netip.AddrPortFrom(e.IP, 0), false), mins, e.Ban.Reason)
	}
	return b.String()
}

// SaveFile is the console's bans_save: it writes SaveText to path ("" for
// an argument the console refused) and returns the reference's text,
// naming the file as the user gave it (name).
func (l *BanList) SaveFile(path, name string, now time.Time) string {
	if path == "" || os.WriteFile(path, []byte(l.SaveText(now)), 0o644) != nil {
		return fmt.Sprintf("failed to save banlist to '%s'", name)
	}
	return fmt.Sprintf("saved banlist to '%s'", name)
}

package server

import (
	"fmt"
	"net/netip"
	"os"
	"sort"
	"strings"
	"time"

	"twserver/console"
)

// MaxBans bounds the ban list.
const MaxBans = 1024

// banReplyInterval throttles CLOSE replies to a banned address (net.md A1.11).
const banReplyInterval = 5 * time.Second

type ban struct {
	until     time.Time // zero = permanent
	reason    string
	lastReply time.Time
	seq       uint64 // order of creation, for the list and unban by index
}

// banList is the IP ban list, owned by the loop.
type banList struct {
	m   map[netip.Addr]*ban
	seq uint64
}

// MaxBanReasonLen is the longest ban reason kept in bytes (the reference's
// 128-byte reason buffer less its terminator).
const MaxBanReasonLen = 127

// banText formats the reference ban message for the banned player.
func banText(b *ban, now time.Time) string { return banInfo("You have been banned", b, now) }

// banInfo formats the reference's ban information: head, then " for life",
// " for 1 minute" or " for N minutes" (rounded up), then the reason in
// parentheses.
func banInfo(head string, b *ban, now time.Time) string {
	if b.until.IsZero() {
		return fmt.Sprintf("%s for life (%s)", head, b.reason)
	}
	mins := int((b.until.Sub(now) + time.Minute - 1) / time.Minute)
	if mins <= 1 {
		return fmt.Sprintf("%s for 1 minute (%s)", head, b.reason)
	}
	return fmt.Sprintf("%s for %d minutes (%s)", head, mins, b.reason)
}

// add bans ip for d (0 = permanent). It returns the ban, whether an
// existing ban was updated, and nil when the list is full.
func (l *banList) add(ip netip.Addr, d time.Duration, reason string, now time.Time) (b *ban, updated bool) {
	if l.m == nil {
		l.m = make(map[netip.Addr]*ban)
	}
	l.expire(now)
	ip = ip.Unmap()
	b, updated = l.m[ip]
	if !updated {
		if len(l.m) >= MaxBans {
			return nil, false
		}
		l.seq++
		b = &ban{seq: l.seq}
		l.m[ip] = b
	}
	b.reason = truncUTF8(reason, MaxBanReasonLen)
	b.until = time.Time{}
	if d > 0 {
		b.until = now.Add(d)
	}
	return b, updated
}

func (l *banList) remove(ip netip.Addr) bool {
	if _, ok := l.m[ip.Unmap()]; !ok {
		return false
	}
	delete(l.m, ip.Unmap())
	return true
}

// clear removes every ban.
func (l *banList) clear() { clear(l.m) }

func (l *banList) expire(now time.Time) {
	for ip, b := range l.m {
		if !b.until.IsZero() && now.After(b.until) {
			delete(l.m, ip)
		}
	}
}

// check reports whether ip is banned; reason is non-empty when a CLOSE should
// be sent now (at most once per banReplyInterval).
func (l *banList) check(ip netip.Addr, now time.Time) (string, bool) {
	b, ok := l.m[ip.Unmap()]
	if !ok {
		return "", false
	}
	if !b.until.IsZero() && now.After(b.until) {
		delete(l.m, ip.Unmap())
		return "", false
	}
	if now.Sub(b.lastReply) < banReplyInterval {
		b.lastReply = now
		return "", true
	}
	b.lastReply = now
	return banText(b, now), true
}

// banEntry is one ban of a listing.
type banEntry struct {
	ip netip.Addr
	b  *ban
}

// entries returns the current bans in the order they were made (the
// indexes of "bans" and "unban INDEX").
func (l *banList) entries(now time.Time) []banEntry {
	l.expire(now)
	out := make([]banEntry, 0, len(l.m))
	for ip, b := range l.m {
		out = append(out, banEntry{ip, b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].b.seq < out[j].b.seq })
	return out
}

// banAddrStr is the reference's address in ban texts (NetToString): the
// IP in single quotes.
func banAddrStr(ip netip.Addr) string { return "'" + refAddr(netip.AddrPortFrom(ip, 0), false) + "'" }

// parseRefAddr reads an address as the reference's ban commands take it:
// an IP address, optionally with a port (ignored), IPv6 optionally in brackets.
func parseRefAddr(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err == nil {
		return a.Unmap(), true
	}
	return netip.Addr{}, false
}

// Ban minutes of the reference's ban command.
const (
	// DefaultBanMinutes is the ban time when none is given.
	DefaultBanMinutes = 30
	// MaxBanMinutes is the longest ban time the ban command takes (31 days).
	MaxBanMinutes = 31 * 24 * 60
)

// cmdBan: "ban ID|IP [minutes] [reason]" with the reference's texts.
func (s *Server) cmdBan(by int, a console.Args) {
	target := a.Str(0)
	minutes := DefaultBanMinutes
	if a.N() > 1 {
		minutes = min(max(a.Int(1), 0), MaxBanMinutes)
	}
	reason := "No reason given"
	if a.N() > 2 {
		reason = a.Str(2)
	}
	var ip netip.Addr
	switch {
	case strings.Trim(target, "0123456789") == "": // str_is_number: only digits
		cid := a.Int(0)
		if cid < 0 || cid >= len(s.clients) || s.clients[cid].state == stateEmpty {
			s.consoleOut("ban error (invalid client id)")
			return
		}
		ip = s.clients[cid].addr.Addr().Unmap()
	case strings.Contains(strings.TrimSuffix(target, "-"), "-"):
		s.consoleOut("ban error (address ranges are not supported by twserver)")
		return
	default:
		var ok bool
		if ip, ok = parseRefAddr(strings.TrimSuffix(target, "-")); !ok {
			s.consoleOut("ban error (invalid network address)")
			return
		}
	}
	s.banAddr(by, ip, minutes, reason)
}

// banAddr is the reference's checked ban (CServerBan::BanExt) made by caller
// by (console.Caller.CID: an rcon client id, console.CIDConsole or
// console.CIDVote): it refuses to ban the rcon user's own address, an
// address of another authenticated client (and, for a passed vote, of any authenticated client) and the
// loopback addresses 127.0.0.1 and ::1; then it bans, prints the result and
// drops the clients on the address. It reports whether the ban was made.
func (s *Server) banAddr(by int, ip netip.Addr, minutes int, reason string) bool {
	if by >= 0 {
		if s.clients[by].addr.Addr().Unmap() == ip {
			s.consoleOut("ban error (you can't ban yourself)")
			return false
		}
	}
	if by >= 0 || by == console.CIDVote {
		for _, c := range s.clients {
			if c.id != by && c.state != stateEmpty && c.rconAuthed && c.addr.Addr().Unmap() == ip {
				s.consoleOut("ban error (command denied)")
				return false
			}
		}
	}
	if ip == netip.IPv4Unspecified() || ip == netip.MustParseAddr("127.0.0.1") || ip == netip.IPv6Loopback() {
		s.consoleOut("ban failed (localhost)")
		return false
	}
	now := time.Now()
	b, updated := s.bans.add(ip, time.Duration(minutes)*time.Minute, reason, now)
	switch {
	case b == nil:
		s.consoleOut("ban failed (full banlist)")
		return false
	case updated:
		s.consoleOut(banInfo(banAddrStr(ip)+" banned", b, now))
	default:
		s.consoleOut(banInfo("banned "+banAddrStr(ip), b, now))
	}
	s.dropBanned(ip, b, now, minutes)
	return true
}

// banIP bans ip for d (0 = permanent) without the console's checks and
// texts (the stress ban) and drops every client on it; it returns the
// player's ban text.
func (s *Server) banIP(ip netip.Addr, d time.Duration, reason string) string {
	now := time.Now()
	b, _ := s.bans.add(ip, d, reason, now)
	if b == nil {
		return "ban list full"
	}
	s.dropBanned(ip.Unmap(), b, now, int(d/time.Minute))
	return banText(b, now)
}

func (s *Server) dropBanned(ip netip.Addr, b *ban, now time.Time, minutes int) {
	s.gauges.BansTotal.Add(1)
	s.gauges.Bans.Store(int32(len(s.bans.m)))
	s.rateLog().Str("ip", ip.String()).Int("minutes", minutes).Str("reason", b.reason).Msg("ban")
	text := banText(b, now)
	for _, c := range s.clients {
		if c.state != stateEmpty && c.addr.Addr().Unmap() == ip {
			s.dropClient(c, text)
		}
	}
}

// cmdUnban: an address, or (only digits) the number of a bans line.
func (s *Server) cmdUnban(arg string) {
	now := time.Now()
	if strings.Trim(arg, "0123456789") == "" {
		i := console.Args{arg}.Int(0)
		es := s.bans.entries(now)
		if i < 0 || i >= len(es) {
			s.consoleOut("unban failed (invalid index)")
			return
		}
		s.bans.remove(es[i].ip)
		s.gauges.Bans.Store(int32(len(s.bans.m)))
		s.consoleOut(fmt.Sprintf("unbanned index %d (%s)", i, banAddrStr(es[i].ip)))
		return
	}
	if strings.Contains(strings.TrimSuffix(arg, "-"), "-") {
		s.consoleOut("unban error (address ranges are not supported by twserver)")
		return
	}
	ip, ok := parseRefAddr(strings.TrimSuffix(arg, "-"))
	if !ok {
		s.consoleOut("unban error (invalid network address)")
		return
	}
	b := s.bans.m[ip]
	if b == nil {
		s.consoleOut("unban failed (invalid entry)")
		return
	}
	text := banInfo("unbanned "+banAddrStr(ip), b, now)
	s.bans.remove(ip)
	s.gauges.Bans.Store(int32(len(s.bans.m)))
	s.consoleOut(text)
}

// cmdBans lists the bans as the reference: "#N IP banned for ... (reason)"
// and a count line.
func (s *Server) cmdBans() {
	now := time.Now()
	es := s.bans.entries(now)
	for i, e := range es {
		s.consoleOut(fmt.Sprintf("#%d %s", i, banInfo(banAddrStr(e.ip)+" banned", e.b, now)))
	}
	word := "bans"
	if len(es) == 1 {
		word = "ban"
	}
	s.consoleOut(fmt.Sprintf("%d %s", len(es), word))
}

// cmdBansSave writes "ban IP MINUTES REASON" lines (-1 minutes: for life,
// as the reference writes them) that exec reads back.
func (s *Server) cmdBansSave(name string) {
	p, ok := console.RelPath(name)
	if !ok {
		s.consoleOut(fmt.Sprintf("failed to save banlist to '%s'", name))
		return
	}
	now := time.Now()
	var b strings.Builder
	for _, e := range s.bans.entries(now) {
		mins := -1
		if !e.b.until.IsZero() {
			mins = int((e.b.until.Sub(now) + time.Minute - 1) / time.Minute)
		}
		fmt.Fprintf(&b, "ban %s %d %s\n", refAddr(netip.AddrPortFrom(e.ip, 0), false), mins, e.b.reason)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		s.consoleOut(fmt.Sprintf("failed to save banlist to '%s'", name))
		return
	}
	s.consoleOut(fmt.Sprintf("saved banlist to '%s'", name))
}

package server

import (
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"

	"twserver/console"
	"twserver/edge"
)

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
	b, updated := s.bans.Add(ip, time.Duration(minutes)*time.Minute, truncUTF8(reason, edge.MaxBanReasonLen), now)
	switch {
	case b == nil:
		s.consoleOut("ban failed (full banlist)")
		return false
	case updated:
		s.consoleOut(edge.BanInfo(banAddrStr(ip)+" banned", b, now))
	default:
		s.consoleOut(edge.BanInfo("banned "+banAddrStr(ip), b, now))
	}
	s.dropBanned(ip, b, now, minutes)
	return true
}

// banIP bans ip for d (0 = permanent) without the console's checks and
// texts (the stress ban) and drops every client on it; it returns the
// player's ban text.
func (s *Server) banIP(ip netip.Addr, d time.Duration, reason string) string {
	now := time.Now()
	b, _ := s.bans.Add(ip, d, truncUTF8(reason, edge.MaxBanReasonLen), now)
	if b == nil {
		return "ban list full"
	}
	s.dropBanned(ip.Unmap(), b, now, int(d/time.Minute))
	return edge.BanText(b, now)
}

func (s *Server) dropBanned(ip netip.Addr, b *edge.Ban, now time.Time, minutes int) {
	s.gauges.BansTotal.Add(1)
	s.gauges.Bans.Store(int32(s.bans.Len()))
	s.rateLog().Str("ip", ip.String()).Int("minutes", minutes).Str("reason", b.Reason).Msg("ban")
	text := edge.BanText(b, now)
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
		es := s.bans.Entries(now)
		if i < 0 || i >= len(es) {
			s.consoleOut("unban failed (invalid index)")
			return
		}
		s.bans.Remove(es[i].IP)
		s.gauges.Bans.Store(int32(s.bans.Len()))
		s.consoleOut(fmt.Sprintf("unbanned index %d (%s)", i, banAddrStr(es[i].IP)))
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
	b := s.bans.Lookup(ip)
	if b == nil {
		s.consoleOut("unban failed (invalid entry)")
		return
	}
	text := edge.BanInfo("unbanned "+banAddrStr(ip), b, now)
	s.bans.Remove(ip)
	s.gauges.Bans.Store(int32(s.bans.Len()))
	s.consoleOut(text)
}

// cmdBans lists the bans as the reference: "#N IP banned for ... (reason)"
// and a count line.
func (s *Server) cmdBans() {
	now := time.Now()
	es := s.bans.Entries(now)
	for i, e := range es {
		s.consoleOut(fmt.Sprintf("#%d %s", i, edge.BanInfo(banAddrStr(e.IP)+" banned", e.Ban, now)))
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
	for _, e := range s.bans.Entries(now) {
		mins := -1
		if !e.Ban.Until.IsZero() {
			mins = int((e.Ban.Until.Sub(now) + time.Minute - 1) / time.Minute)
		}
		fmt.Fprintf(&b, "ban %s %d %s\n", refAddr(netip.AddrPortFrom(e.IP, 0), false), mins, e.Ban.Reason)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		s.consoleOut(fmt.Sprintf("failed to save banlist to '%s'", name))
		return
	}
	s.consoleOut(fmt.Sprintf("saved banlist to '%s'", name))
}

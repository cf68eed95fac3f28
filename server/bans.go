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

// cmdBan: "ban ID|IP [minutes] [reason]" with the reference's texts.
func (s *Server) cmdBan(by int, a console.Args) {
	minutes := edge.DefaultBanMinutes
	if a.N() > 1 {
		minutes = edge.BanMinutes(a.Int(1))
	}
	reason := "No reason given"
	if a.N() > 2 {
		reason = a.Str(2)
	}
	isCID, cid, ip, errText := edge.BanTarget(a.Str(0))
	switch {
	case errText != "":
		s.consoleOut(errText)
		return
	case isCID:
		if cid < 0 || cid >= len(s.clients) || s.clients[cid].state == stateEmpty {
			s.consoleOut("ban error (invalid client id)")
			return
		}
		ip = s.clients[cid].addr.Addr().Unmap()
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
			if c.id != by && c.state != stateEmpty && c.rcon.Authed && c.addr.Addr().Unmap() == ip {
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
	b, text := s.bans.AddChecked(ip, minutes, truncUTF8(reason, edge.MaxBanReasonLen), now)
	s.consoleOut(text)
	if b == nil {
		return false
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
	text := s.bans.Unban(arg, time.Now())
	if strings.HasPrefix(text, "unbanned ") {
		s.gauges.Bans.Store(int32(s.bans.Len()))
	}
	s.consoleOut(text)
}

// cmdBans lists the bans as the reference: "#N IP banned for ... (reason)"
// and a count line.
func (s *Server) cmdBans() { s.bans.List(time.Now(), s.consoleOut) }

// cmdBansSave writes the bans as console lines that exec reads back.
func (s *Server) cmdBansSave(name string) {
	p, ok := console.RelPath(name)
	if !ok || os.WriteFile(p, []byte(s.bans.SaveText(time.Now())), 0o644) != nil {
		s.consoleOut(fmt.Sprintf("failed to save banlist to '%s'", name))
		return
	}
	s.consoleOut(fmt.Sprintf("saved banlist to '%s'", name))
}

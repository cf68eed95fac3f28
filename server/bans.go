package server

import (
	"net/netip"
	"time"

	"twserver/console"
	"twserver/edge"
	"twserver/gamemsg"
)

// cmdBan: "ban ID|IP [minutes] [reason]" with the reference's texts.
func (s *Server) cmdBan(by int, a console.Args) {
	ip, minutes, reason, errText := edge.BanArgs(a, (*holders)(s))
	if errText != "" {
		s.consoleOut(errText)
		return
	}
	s.banAddr(by, ip, minutes, reason)
}

// banAddr is the reference's checked ban (edge.BanList.BanChecked) made by
// caller by (console.Caller.CID: an rcon client id, console.CIDConsole or
// console.CIDVote): it bans, prints the result and drops the clients on
// the address. It reports whether the ban was made.
func (s *Server) banAddr(by int, ip netip.Addr, minutes int, reason string) bool {
	now := time.Now()
	b, text := s.bans.BanChecked(edge.Banner{By: by, Vote: by == console.CIDVote}, ip, minutes, reason, (*holders)(s), now)
	s.consoleOut(text)
	if b == nil {
		return false
	}
	s.dropBanned(ip, b, now, minutes)
	return true
}

// holders is the loop's client slots as the ban console sees them.
type holders Server

// Len is the number of client slots.
func (h *holders) Len() int { return len(h.clients) }

// Holder returns slot i.
func (h *holders) Holder(i int) edge.Holder {
	c := h.clients[i]
	return edge.Holder{Used: c.state != stateEmpty, Addr: c.addr.Addr().Unmap(), Authed: c.rcon.Authed}
}

// banIP bans ip for d (0 = permanent) without the console's checks and
// texts (the stress ban) and drops every client on it; it returns the
// player's ban text.
func (s *Server) banIP(ip netip.Addr, d time.Duration, reason string) string {
	now := time.Now()
	b, _ := s.bans.Add(ip, d, gamemsg.TruncUTF8(reason, edge.MaxBanReasonLen), now)
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
	s.consoleOut(s.bans.Unban(arg, time.Now()))
	s.gauges.Bans.Store(int32(s.bans.Len()))
}

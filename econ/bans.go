package econ

import (
	"fmt"
	"net/netip"
	"time"
)

// Ban bounds.
const (
	// MaxBans bounds the addresses banned for wrong passwords at once; when
	// full, a further ban fails ("ban failed (full banlist)") and the
	// connection is only dropped.
	MaxBans = 1024
	// BanReplyInterval: a banned address that connects is told its ban only
	// if its previous attempt (or the ban) is older than this; otherwise the
	// connection is closed without a word (CNetConsole::Update).
	BanReplyInterval = 5 * time.Second
)

type ban struct {
	until     time.Time
	reason    string
	lastQuery time.Time
}

// banList holds the addresses banned from the econ (guarded by Server.mu).
// The reference keeps these in the game server's ban list; here they ban
// the econ only.
type banList struct {
	m map[netip.Addr]*ban
}

// bannable reports whether ip may be banned: the reference never bans
// localhost (127.0.0.1 and ::1), so a local operator cannot lock himself out.
func bannable(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip != netip.AddrFrom4([4]byte{127, 0, 0, 1}) && ip != netip.IPv6Loopback()
}

// banMinutes formats the time left as the reference does.
func banMinutes(b *ban, now time.Time) string {
	mins := int((b.until.Sub(now) + time.Minute - time.Second) / time.Minute)
	if mins <= 1 {
		return fmt.Sprintf("for 1 minute (%s)", b.reason)
	}
	return fmt.Sprintf("for %d minutes (%s)", mins, b.reason)
}

// add bans ip for d and returns the console line about it (system net_ban;
// the reference quotes the address).
func (l *banList) add(ip netip.Addr, d time.Duration, reason string, now time.Time) string {
	ip = ip.Unmap()
	if !bannable(ip) {
		return "ban failed (localhost)"
	}
	l.expire(now)
	if l.m == nil {
		l.m = make(map[netip.Addr]*ban)
	}
	if b, ok := l.m[ip]; ok {
		b.until, b.reason, b.lastQuery = now.Add(d), reason, now
		return "'" + ip.String() + "' banned " + banMinutes(b, now)
	}
	if len(l.m) >= MaxBans {
		return "ban failed (full banlist)"
	}
	b := &ban{until: now.Add(d), reason: reason, lastQuery: now}
	l.m[ip] = b
	return "banned '" + ip.String() + "' " + banMinutes(b, now)
}

// check reports whether ip is banned; text is the message to send before
// closing ("" = close silently: asked again within BanReplyInterval).
func (l *banList) check(ip netip.Addr, now time.Time) (text string, banned bool) {
	b, ok := l.m[ip.Unmap()]
	if !ok {
		return "", false
	}
	if !now.Before(b.until) {
		delete(l.m, ip.Unmap())
		return "", false
	}
	last := b.lastQuery
	b.lastQuery = now
	if now.Sub(last) <= BanReplyInterval {
		return "", true
	}
	return "You have been banned " + banMinutes(b, now), true
}

// expire removes the bans that ended.
func (l *banList) expire(now time.Time) {
	for ip, b := range l.m {
		if !now.Before(b.until) {
			delete(l.m, ip)
		}
	}
}

// len counts the bans (expired ones included until the next add).
func (l *banList) len() int { return len(l.m) }

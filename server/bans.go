package server

import (
	"fmt"
	"net/netip"
	"sort"
	"time"
)

// MaxBans bounds the ban list.
const MaxBans = 1024

// banReplyInterval throttles CLOSE replies to a banned address (net.md A1.11).
const banReplyInterval = 5 * time.Second

type ban struct {
	until     time.Time // zero = permanent
	reason    string
	lastReply time.Time
}

// banList is the IP ban list, owned by the loop.
type banList struct {
	m map[netip.Addr]*ban
}

// banText formats the reference ban message.
func banText(b *ban, now time.Time) string {
	if b.until.IsZero() {
		return fmt.Sprintf("You have been banned for life (%s)", b.reason)
	}
	mins := int((b.until.Sub(now) + time.Minute - 1) / time.Minute)
	if mins <= 1 {
		return fmt.Sprintf("You have been banned for 1 minute (%s)", b.reason)
	}
	return fmt.Sprintf("You have been banned for %d minutes (%s)", mins, b.reason)
}

// add bans ip for d (0 = permanent) and returns the ban text.
func (l *banList) add(ip netip.Addr, d time.Duration, reason string, now time.Time) string {
	if l.m == nil {
		l.m = make(map[netip.Addr]*ban)
	}
	l.expire(now)
	if _, ok := l.m[ip]; !ok && len(l.m) >= MaxBans {
		return "ban list full"
	}
	b := &ban{reason: reason}
	if d > 0 {
		b.until = now.Add(d)
	}
	l.m[ip.Unmap()] = b
	return banText(b, now)
}

func (l *banList) remove(ip netip.Addr) bool {
	if _, ok := l.m[ip.Unmap()]; !ok {
		return false
	}
	delete(l.m, ip.Unmap())
	return true
}

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

func (l *banList) list(now time.Time) []string {
	l.expire(now)
	var out []string
	for ip, b := range l.m {
		out = append(out, ip.String()+": "+banText(b, now))
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = append(out, "no bans")
	}
	return out
}

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

package edge

import (
	"fmt"
	"net/netip"
	"sort"
	"time"
)

// MaxBans bounds the ban list.
const MaxBans = 1024

// MaxBanReasonLen is the longest ban reason kept in bytes (the reference's
// 128-byte reason buffer less its terminator); the loop cuts reasons to it
// (at a rune boundary) before Add.
const MaxBanReasonLen = 127

// banReplyInterval throttles CLOSE replies to a banned address (net.md A1.11).
const banReplyInterval = 5 * time.Second

// Ban is one banned address.
type Ban struct {
	// Until is when the ban ends; zero = permanent.
	Until time.Time
	// Reason is shown to the banned player.
	Reason    string
	lastReply time.Time
	seq       uint64 // order of creation, for the list and unban by index
}

// BanList is the IP ban list the loop applies to connection requests
// (Check) and the console edits. Loop goroutine only.
type BanList struct {
	m   map[netip.Addr]*Ban
	seq uint64
}

// BanText formats the reference ban message for the banned player.
func BanText(b *Ban, now time.Time) string { return BanInfo("You have been banned", b, now) }

// BanInfo formats the reference's ban information: head, then " for life",
// " for 1 minute" or " for N minutes" (rounded up), then the reason in
// parentheses.
func BanInfo(head string, b *Ban, now time.Time) string {
	if b.Until.IsZero() {
		return fmt.Sprintf("%s for life (%s)", head, b.Reason)
	}
	mins := int((b.Until.Sub(now) + time.Minute - 1) / time.Minute)
	if mins <= 1 {
		return fmt.Sprintf("%s for 1 minute (%s)", head, b.Reason)
	}
	return fmt.Sprintf("%s for %d minutes (%s)", head, mins, b.Reason)
}

// Add bans ip for d (0 = permanent). It returns the ban, whether an
// existing ban was updated, and nil when the list is full.
func (l *BanList) Add(ip netip.Addr, d time.Duration, reason string, now time.Time) (b *Ban, updated bool) {
	if l.m == nil {
		l.m = make(map[netip.Addr]*Ban)
	}
	l.expire(now)
	ip = ip.Unmap()
	b, updated = l.m[ip]
	if !updated {
		if len(l.m) >= MaxBans {
			return nil, false
		}
		l.seq++
		b = &Ban{seq: l.seq}
		l.m[ip] = b
	}
	b.Reason = reason
	b.Until = time.Time{}
	if d > 0 {
		b.Until = now.Add(d)
	}
	return b, updated
}

// Remove lifts the ban of ip; it reports whether there was one.
func (l *BanList) Remove(ip netip.Addr) bool {
	if _, ok := l.m[ip.Unmap()]; !ok {
		return false
	}
	delete(l.m, ip.Unmap())
	return true
}

// Clear removes every ban.
func (l *BanList) Clear() { clear(l.m) }

// Len is the number of bans held, expired ones included until they are
// next looked at.
func (l *BanList) Len() int { return len(l.m) }

// Lookup returns the ban of ip (an unmapped address), or nil.
func (l *BanList) Lookup(ip netip.Addr) *Ban { return l.m[ip] }

func (l *BanList) expire(now time.Time) {
	for ip, b := range l.m {
		if !b.Until.IsZero() && now.After(b.Until) {
			delete(l.m, ip)
		}
	}
}

// Active counts the bans not expired at now.
func (l *BanList) Active(now time.Time) int {
	n := 0
	for _, b := range l.m {
		if b.Until.IsZero() || !now.After(b.Until) {
			n++
		}
	}
	return n
}

// Check reports whether ip is banned; reason is non-empty when a CLOSE should
// be sent now (at most once per banReplyInterval).
func (l *BanList) Check(ip netip.Addr, now time.Time) (string, bool) {
	b, ok := l.m[ip.Unmap()]
	if !ok {
		return "", false
	}
	if !b.Until.IsZero() && now.After(b.Until) {
		delete(l.m, ip.Unmap())
		return "", false
	}
	if now.Sub(b.lastReply) < banReplyInterval {
		b.lastReply = now
		return "", true
	}
	b.lastReply = now
	return BanText(b, now), true
}

// BanEntry is one ban of a listing.
type BanEntry struct {
	IP  netip.Addr
	Ban *Ban
}

// Entries returns the current bans in the order they were made (the
// indexes of "bans" and "unban INDEX").
func (l *BanList) Entries(now time.Time) []BanEntry {
	l.expire(now)
	out := make([]BanEntry, 0, len(l.m))
	for ip, b := range l.m {
		out = append(out, BanEntry{ip, b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ban.seq < out[j].Ban.seq })
	return out
}

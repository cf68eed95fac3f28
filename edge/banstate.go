package edge

import (
	"fmt"
	"net/netip"
	"sort"
	"time"
	"unicode/utf8"
)

// BanRecord is one ban as a live upgrade carries it to the new process
// (JSON in the handover state, docs/operating.md).
type BanRecord struct {
	// Addr is the banned address.
	Addr netip.Addr `json:"addr"`
	// Until is when the ban ends; zero (left out) for life.
	Until time.Time `json:"until,omitzero"`
	// Reason is shown to the banned player (at most MaxBanReasonLen bytes).
	Reason string `json:"reason"`
}

// Export returns the bans not expired at now, oldest first (the order of
// the list and of unban by number).
func (l *BanList) Export(now time.Time) []BanRecord {
	type entry struct {
		seq uint64
		rec BanRecord
	}
	var es []entry
	for ip, b := range l.m {
		if b.Until.IsZero() || !now.After(b.Until) {
			es = append(es, entry{b.seq, BanRecord{Addr: ip, Until: b.Until, Reason: b.Reason}})
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].seq < es[j].seq })
	out := make([]BanRecord, len(es))
	for i, e := range es {
		out[i] = e.rec
	}
	return out
}

// Import adds the bans of recs, in order, as Add does, keeping their
// expiry; a ban expired at now is left out. It refuses (adding nothing)
// more than MaxBans records, an invalid address, or a reason that is not
// UTF-8 or longer than MaxBanReasonLen.
func (l *BanList) Import(recs []BanRecord, now time.Time) error {
	if len(recs) > MaxBans {
		return fmt.Errorf("edge: %d bans, at most %d", len(recs), MaxBans)
	}
	for i, r := range recs {
		if !r.Addr.IsValid() {
			return fmt.Errorf("edge: ban %d: no valid address", i)
		}
		if len(r.Reason) > MaxBanReasonLen || !utf8.ValidString(r.Reason) {
			return fmt.Errorf("edge: ban %d: the reason is not UTF-8 of at most %d bytes", i, MaxBanReasonLen)
		}
	}
	for _, r := range recs {
		if !r.Until.IsZero() && now.After(r.Until) {
			continue
		}
		if b, _ := l.Add(r.Addr, 0, r.Reason, now); b != nil {
			b.Until = r.Until
		}
	}
	return nil
}

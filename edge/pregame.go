package edge

import (
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Slot-holding defences (issue 11): bounds on the clients that are
// connected but not in the game yet ("pre-game": states auth, connecting and
// ready), whatever protocol dialect they speak, since they are counted on
// the slots. Measured with `twload hold` (README, Reliability): without
// them, 64 addresses that complete the handshake and then stall (or only
// keep the connection alive) fill a 64-slot server, and every new player is
// refused with "This server is full" for as long as they hold.
//
// The rules:
//   - a pre-game client must make progress: INFO within PregameInfoTimeout
//     of being accepted; while connecting, a map request (or READY) at least
//     every PregameStallTimeout; ENTERGAME within PregameEnterTimeout of
//     READY. A slow download that asks for its next window of chunks within
//     PregameStallTimeout is never stopped, so the bound on a whole download
//     scales with the map: (windows + 1) × PregameStallTimeout.
//   - at most half the slots (pregameCap) are pre-game at once, and while
//     more than half of those are taken, at most MaxPregamePerIP per address;
//   - when a CONNECT finds the pre-game share or the server full, the
//     pre-game client that has made no progress for longest is dropped for
//     it, if that is at least PregameEvictIdle: a stalled connection cannot
//     keep a player out for more than that. Players back in the pre-game
//     stages for a map change are never dropped for a newcomer.
const (
	// PregameInfoTimeout bounds CONNECT to INFO (the 0.7.5 client sends INFO
	// with its first packet after the accept).
	PregameInfoTimeout = 10 * time.Second
	// PregameStallTimeout bounds the time without progress while
	// connecting: between map-chunk requests (a window of
	// map_download_speed chunks each), and from the last chunk or from
	// INFO to READY (the client loads the map in between).
	PregameStallTimeout = 10 * time.Second
	// PregameEnterTimeout bounds READY to ENTERGAME (the 0.7.5 client
	// answers CON_READY with its start info and Sv_ReadyToEnter with
	// ENTERGAME at once).
	PregameEnterTimeout = 10 * time.Second
	// PregameEvictIdle is how long a pre-game client must have made no
	// progress before a new CONNECT may take its place when the pre-game
	// share or the server is full. A client going through the handshake
	// makes progress every round trip; one loading a big map may pause for
	// about a second.
	PregameEvictIdle = 2 * time.Second
	// MaxPregamePerIP bounds pre-game clients per address while the
	// pre-game share is more than half taken (a LAN behind one address
	// joining an idle server is not refused).
	MaxPregamePerIP = 2
)

// Refusal and drop reasons of the pre-game bounds (sent in CLOSE).
const (
	ReasonPregameFull  = "Too many clients are connecting right now, try again in a few seconds"
	ReasonPregamePerIP = "Too many connections from your address are still connecting (at most %d), try again in a few seconds"
	ReasonPregameStall = "Timeout while connecting (no progress)"
	ReasonEvicted      = "Dropped while connecting: no progress while the server was full"
)

// PregameDrops names why pre-game clients were dropped, in index order
// (Gauges.PregameDrops): stalled in auth (no INFO), connecting (map
// download or READY), ready (no ENTERGAME), or evicted for a new CONNECT.
var PregameDrops = [...]string{"stall_auth", "stall_connecting", "stall_ready", "evicted"}

// Indexes in PregameDrops.
const (
	PregameStallAuth = iota
	PregameStallConnecting
	PregameStallReady
	PregameEvicted
)

// Stage is where a pre-game client is in the handshake.
type Stage uint8

// Stages of a slot as the pre-game bounds see it.
const (
	// StageNone: empty or in the game, not pre-game.
	StageNone Stage = iota
	// StageAuth: accepted, waiting for INFO.
	StageAuth
	// StageConnecting: loading the map, until READY.
	StageConnecting
	// StageReady: READY, waiting for ENTERGAME.
	StageReady
)

// PregameSlot is what the pre-game bounds see of one slot.
type PregameSlot struct {
	// Addr is the slot's address.
	Addr netip.AddrPort
	// Stage is StageNone unless the slot is pre-game.
	Stage Stage
	// Entered is set when the client was in the game on this connection
	// (back in the pre-game stages for a map change).
	Entered bool
	// ProgressAt is when the client last moved on (the loop's clock).
	ProgressAt time.Duration
}

// Slots is the loop's view of its slots for the pre-game bounds (loop
// goroutine; the edge keeps nothing of it).
type Slots interface {
	// Len is the number of slots.
	Len() int
	// Slot returns slot i.
	Slot(i int) PregameSlot
}

// PregameCap is the most slots that may be pre-game at once: half of
// them (at least one).
func PregameCap(slots int) int { return max(1, slots/2) }

// PregameCounts returns the pre-game slots in total and those of ip.
func PregameCounts(s Slots, ip netip.Addr) (total, sameIP int) {
	for i := range s.Len() {
		if p := s.Slot(i); p.Stage != StageNone {
			total++
			if p.Addr.Addr() == ip {
				sameIP++
			}
		}
	}
	return total, sameIP
}

// stalest returns the pre-game slot without progress for longest, if
// that is at least PregameEvictIdle, or -1. Players loading the map after
// a map change (Entered) are never chosen.
func stalest(s Slots, now time.Duration) int {
	best, bestAt := -1, time.Duration(0)
	for i := range s.Len() {
		p := s.Slot(i)
		if p.Stage != StageNone && !p.Entered && now-p.ProgressAt >= PregameEvictIdle && (best < 0 || p.ProgressAt < bestAt) {
			best, bestAt = i, p.ProgressAt
		}
	}
	return best
}

// AdmitPregame applies the pre-game bounds to a connection request from
// ip at now (the loop calls it after the ban check, before its full and
// per-IP checks; full: every slot is taken). It returns the refusal
// reason (perIP: for the per-address bound, else the pre-game share), or
// the slot whose stalled client the loop is to drop (PregameEvicted) to
// make room (evict >= 0), or neither to go on.
func AdmitPregame(s Slots, ip netip.Addr, now time.Duration, full bool) (reason string, perIP bool, evict int) {
	total, sameIP := PregameCounts(s, ip)
	capN := PregameCap(s.Len())
	if total > capN/2 && sameIP >= MaxPregamePerIP {
		return strings.Replace(ReasonPregamePerIP, "%d", strconv.Itoa(MaxPregamePerIP), 1), true, -1
	}
	if total < capN && !full {
		return "", false, -1
	}
	if i := stalest(s, now); i >= 0 {
		return "", false, i
	}
	if total >= capN && !full {
		return ReasonPregameFull, false, -1
	}
	return "", false, -1 // the server is full: its own check refuses
}

// Stalled reports whether a pre-game slot made no progress for longer
// than its stage allows at now, and the PregameDrops index that counts it.
func (p PregameSlot) Stalled(now time.Duration) (kind int, stalled bool) {
	limit, kind := PregameStallTimeout, PregameStallConnecting
	switch p.Stage {
	case StageNone:
		return 0, false
	case StageAuth:
		limit, kind = PregameInfoTimeout, PregameStallAuth
	case StageReady:
		limit, kind = PregameEnterTimeout, PregameStallReady
	}
	return kind, now-p.ProgressAt > limit
}

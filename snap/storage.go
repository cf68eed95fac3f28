package snap

import "time"

// Storage bounds (net.md A4.2, A4.6).
const (
	// HistoryTicks is how far back snapshots are kept: before adding the
	// snapshot of tick t, everything older than t − HistoryTicks is purged
	// (3 s at 50 ticks/s).
	HistoryTicks = 150
	// MaxStored is the most snapshots one Storage holds: one per tick of the
	// history window. When it is full the oldest entry is dropped.
	MaxStored = HistoryTicks + 1
	// MaxFree is how many purged entries one Storage keeps for reuse; more
	// are left to the garbage collector. A client that stops acknowledging
	// for a few seconds (a stalled server or client) fills the history
	// window, up to MaxStored entries; keeping all of them for reuse pinned
	// that peak for the rest of the connection (the 60-minute soak's memory
	// rose in steps at each stall of the shared machine). An acknowledging
	// client holds 2 to 4 entries, so 8 keep the steady state free of
	// allocations.
	MaxFree = 8
)

type storageEntry struct {
	tag  time.Duration
	snap Snapshot
}

// Storage keeps the snapshots recently sent to (or received by) one client,
// keyed by tick in increasing order. Purged entries are recycled with their
// buffers, most recently purged first, so steady-state use does not
// allocate. The zero value is ready to use.
type Storage struct {
	ring  [MaxStored]*storageEntry // ring[(head+i)%MaxStored], oldest first
	ticks [MaxStored]int32         // the tick of each entry of ring, by the same index: the searches and purges read one array, not every entry
	head  int
	count int
	free  []*storageEntry // purged entries, reused LIFO (at most MaxFree)
}

// Len returns the number of stored snapshots.
func (s *Storage) Len() int { return s.count }

func (s *Storage) at(i int) *storageEntry { return s.ring[(s.head+i)%MaxStored] }

// tickAt returns the tick of the i-th oldest entry.
func (s *Storage) tickAt(i int) int32 { return s.ticks[(s.head+i)%MaxStored] }

// dropOldest moves the oldest entry to the free list (or lets it go when
// the free list holds MaxFree).
func (s *Storage) dropOldest() {
	if s.free == nil {
		s.free = make([]*storageEntry, 0, MaxFree)
	}
	if len(s.free) < MaxFree {
		s.free = append(s.free, s.ring[s.head])
	}
	s.ring[s.head] = nil
	s.head = (s.head + 1) % MaxStored
	s.count--
}

// PurgeAll drops every entry (client drop, map change).
func (s *Storage) PurgeAll() {
	for s.count > 0 {
		s.dropOldest()
	}
}

// PurgeBefore drops every entry with a tick below tick.
func (s *Storage) PurgeBefore(tick int32) {
	for s.count > 0 && s.tickAt(0) < tick {
		s.dropOldest()
	}
}

// Ack records that the client acknowledged tick: older snapshots can no
// longer serve as a delta base and are dropped. Non-positive acks (−1 asks
// for a full snapshot) change nothing.
func (s *Storage) Ack(tick int32) {
	if tick > 0 {
		s.PurgeBefore(tick)
	}
}

// Alloc purges entries older than tick − HistoryTicks, reserves the entry of
// tick (tagged with the time it was taken) and returns its snapshot for the
// caller to fill, e.g. with Builder.Finish. Ticks are expected to increase:
// a tick not above the newest stored one purges everything first (a reset).
// Snapshots returned earlier by Get may be recycled by Alloc, so look up a
// delta base after Alloc.
func (s *Storage) Alloc(tick int32, tag time.Duration) *Snapshot {
	if s.count > 0 && tick <= s.tickAt(s.count-1) {
		s.PurgeAll()
	}
	s.PurgeBefore(tick - HistoryTicks)
	if s.count == MaxStored {
		s.dropOldest()
	}
	var e *storageEntry
	if n := len(s.free); n > 0 {
		e = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		e = new(storageEntry)
	}
	s.ring[(s.head+s.count)%MaxStored] = e
	s.ticks[(s.head+s.count)%MaxStored] = tick
	s.count++
	e.tag = tag
	e.snap.Reset()
	return &e.snap
}

// Add stores a copy of snap under tick, like Alloc followed by CopyFrom.
func (s *Storage) Add(tick int32, tag time.Duration, snap *Snapshot) {
	s.Alloc(tick, tag).CopyFrom(snap)
}

// Get returns the snapshot stored for tick and its tag time.
func (s *Storage) Get(tick int32) (snap *Snapshot, tag time.Duration, ok bool) {
	lo, hi := 0, s.count
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.tickAt(m) < tick {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < s.count && s.tickAt(lo) == tick {
		e := s.at(lo)
		return &e.snap, e.tag, true
	}
	return nil, 0, false
}

// Newest returns the newest stored tick, or −1 when empty.
func (s *Storage) Newest() int32 {
	if s.count == 0 {
		return -1
	}
	return s.tickAt(s.count - 1)
}

// Oldest returns the oldest stored tick, or −1 when empty.
func (s *Storage) Oldest() int32 {
	if s.count == 0 {
		return -1
	}
	return s.tickAt(0)
}

// Warm loads the cache lines Ack, Get and Alloc read first (the ring's
// head, count and ticks, the newest entry, the entry Alloc reuses) and, for
// base ≥ 0, every line of the stored snapshot of tick base (the delta
// base), and returns a byte of them, so a caller about to handle many
// clients can overlap their misses; the value means nothing.
func (s *Storage) Warm(base int32) uint8 {
	acc := uint8(s.count) + uint8(s.ticks[s.head])
	if s.count > 0 {
		acc += uint8(s.at(s.count - 1).tag)
	}
	if n := len(s.free); n > 0 {
		acc += s.free[n-1].snap.warm(1)
	}
	if base >= 0 {
		if b, _, ok := s.Get(base); ok {
			acc += b.warm(1 << 30)
		}
	}
	return acc
}

package snap

import "time"

// ID pool bounds (world.md 5.4).
const (
	// MaxIDs is the number of snapshot item ids in the pool (MAX_IDS).
	MaxIDs = 16 * 1024
	// IDReuseDelay is how long a freed id stays unusable, so that clients do
	// not mistake a new entity for a just-deleted one in a delta.
	IDReuseDelay = 5 * time.Second
)

const (
	idFree uint8 = iota
	idAllocated
	idTimed
)

type idEntry struct {
	next    int16 // next id in the free or timed list, −1 at the end
	state   uint8
	timeout time.Duration
}

// IDPool hands out snapshot item ids 0..MaxIDs−1 exactly like the reference
// server: a freed id waits IDReuseDelay on a timed list before it returns to
// the head of the free list, and fresh ids come from the head of the free
// list (0, 1, 2, … initially; recently released ids first). Time is explicit
// (`now`, a monotonic duration since any fixed start). Use NewIDPool.
type IDPool struct {
	ids        [MaxIDs]idEntry
	firstFree  int
	firstTimed int
	lastTimed  int
	inUse      int
}

// NewIDPool returns an empty pool.
func NewIDPool() *IDPool {
	p := new(IDPool)
	p.Reset()
	return p
}

// Reset frees every id at once.
func (p *IDPool) Reset() {
	for i := range p.ids {
		p.ids[i] = idEntry{next: int16(i + 1)}
	}
	p.ids[MaxIDs-1].next = -1
	p.firstFree, p.firstTimed, p.lastTimed, p.inUse = 0, -1, -1, 0
}

// InUse returns the number of allocated ids (not counting timed ones).
func (p *IDPool) InUse() int { return p.inUse }

// releaseFirstTimed moves the oldest timed id to the head of the free list.
func (p *IDPool) releaseFirstTimed() {
	id := p.firstTimed
	e := &p.ids[id]
	p.firstTimed = int(e.next)
	if p.firstTimed == -1 {
		p.lastTimed = -1
	}
	e.next = int16(p.firstFree)
	e.state = idFree
	p.firstFree = id
}

// New returns a free id. Timed ids whose delay ended strictly before now are
// released first. It fails with ErrIDPoolExhausted when no id is free.
func (p *IDPool) New(now time.Duration) (int, error) {
	for p.firstTimed != -1 && p.ids[p.firstTimed].timeout < now {
		p.releaseFirstTimed()
	}
	id := p.firstFree
	if id == -1 {
		return -1, ErrIDPoolExhausted
	}
	e := &p.ids[id]
	p.firstFree = int(e.next)
	e.state = idAllocated
	p.inUse++
	return id, nil
}

// Free returns id to the pool; it becomes reusable after IDReuseDelay.
// Freeing an id that is not allocated (or out of range) is ignored and
// reported as false.
func (p *IDPool) Free(id int, now time.Duration) bool {
	if id < 0 || id >= MaxIDs || p.ids[id].state != idAllocated {
		return false
	}
	e := &p.ids[id]
	p.inUse--
	e.state = idTimed
	e.timeout = now + IDReuseDelay
	e.next = -1
	if p.lastTimed != -1 {
		p.ids[p.lastTimed].next = int16(id)
	} else {
		p.firstTimed = id
	}
	p.lastTimed = id
	return true
}

// TimeoutAll releases every timed id immediately (map change).
func (p *IDPool) TimeoutAll() {
	for p.firstTimed != -1 {
		p.releaseFirstTimed()
	}
}

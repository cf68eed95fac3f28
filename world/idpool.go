package world

// idPool hands out snapshot item ids the way the 0.7.5 server's CSnapIDPool
// actually behaves: a LIFO free list (initially 0, 1, 2, ...) plus a FIFO of
// freed ids that are moved, oldest first, onto the head of the free list at
// the next allocation.
//
// The reference means to keep a freed id unused for 5 seconds, but it stores
// the wall-clock timeout (int64 microseconds since the epoch) in an int
// field, so the truncated timeout is always below the current time and every
// freed id is reusable at the very next allocation. Replaying a real 0.7.5
// session (refsession_test.go) shows exactly that: a projectile id is reused
// 23 ticks after it was freed. We reproduce the observed behaviour so that
// our snapshots carry the reference's ids. Clients are not confused by it:
// projectiles and lasers are drawn from the current snapshot alone.
//
// When all MaxSnapIDs are in use, alloc returns -1 and the caller does not
// create the entity (the reference asserts).
type idPool struct {
	next       [MaxSnapIDs]int32 // free-list / freed-list links
	firstFree  int32
	firstFreed int32
	lastFreed  int32
	inUse      int
}

func (p *idPool) init() {
	for i := range p.next {
		p.next[i] = int32(i + 1)
	}
	p.next[MaxSnapIDs-1] = -1
	p.firstFree = 0
	p.firstFreed = -1
	p.lastFreed = -1
	p.inUse = 0
}

func (p *idPool) alloc() int {
	for p.firstFreed != -1 {
		id := p.firstFreed
		p.firstFreed = p.next[id]
		p.next[id] = p.firstFree
		p.firstFree = id
	}
	p.lastFreed = -1
	id := p.firstFree
	if id == -1 {
		return -1
	}
	p.firstFree = p.next[id]
	p.inUse++
	return int(id)
}

func (p *idPool) free(id int) {
	if id < 0 || id >= MaxSnapIDs {
		return
	}
	p.inUse--
	p.next[id] = -1
	if p.lastFreed != -1 {
		p.next[p.lastFreed] = int32(id)
	} else {
		p.firstFreed = int32(id)
	}
	p.lastFreed = int32(id)
}

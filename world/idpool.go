package world

// idTimeoutTicks is how long a freed snapshot id stays unusable (5 s, the
// reference's wall-clock timeout expressed in ticks so that the world stays
// deterministic).
const idTimeoutTicks = 5 * tickSpeed

// idPool hands out snapshot item ids the way the reference CSnapIDPool does:
// a LIFO free list (initially 0, 1, 2, ...) and a FIFO of freed ids that
// return to the head of the free list once their timeout passed. When all
// MaxSnapIDs are in use, alloc returns -1 and the caller does not create the
// entity.
type idPool struct {
	next      [MaxSnapIDs]int32 // free-list / timed-list links
	timeout   [MaxSnapIDs]int32
	firstFree int32
	firstTime int32
	lastTime  int32
	inUse     int
}

func (p *idPool) init() {
	for i := range p.next {
		p.next[i] = int32(i + 1)
	}
	p.next[MaxSnapIDs-1] = -1
	p.firstFree = 0
	p.firstTime = -1
	p.lastTime = -1
	p.inUse = 0
}

func (p *idPool) alloc(now int32) int {
	for p.firstTime != -1 && p.timeout[p.firstTime] < now {
		id := p.firstTime
		p.firstTime = p.next[id]
		if p.firstTime == -1 {
			p.lastTime = -1
		}
		p.next[id] = p.firstFree
		p.firstFree = id
	}
	id := p.firstFree
	if id == -1 {
		return -1
	}
	p.firstFree = p.next[id]
	p.inUse++
	return int(id)
}

func (p *idPool) free(id int, now int32) {
	if id < 0 || id >= MaxSnapIDs {
		return
	}
	p.inUse--
	p.timeout[id] = now + idTimeoutTicks
	p.next[id] = -1
	if p.lastTime != -1 {
		p.next[p.lastTime] = int32(id)
	} else {
		p.firstTime = int32(id)
	}
	p.lastTime = int32(id)
}

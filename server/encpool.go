package server

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"twserver/dialect6"
	"twserver/netproto"
	"twserver/snap"
)

// EncodePool is a fixed set of goroutines, shared by every game of a
// process, that build and encode per-client snapshots (world.Snap, storage,
// delta, varints, Huffman, parts) after a world tick. The world is
// read-only while they run: the game's loop waits for its clients' jobs,
// working on a share itself, and then queues the messages on the
// connections in slot order, so what is sent, and in which order, does not
// depend on the pool. Each worker owns its snapshot builder and encoder;
// the encoded messages go into per-client buffers that are reused, so
// steady-state encoding allocates nothing.
type EncodePool struct {
	jobs    chan *encodeJob
	workers int
	wg      sync.WaitGroup
}

// Bounds of the encode pool.
const (
	// MaxEncodeWorkers bounds the pool's goroutines.
	MaxEncodeWorkers = 64
	// encodeQueueLen bounds the jobs waiting for a worker; a loop that finds
	// the queue full encodes its share itself.
	encodeQueueLen = 256
	// maxEncodeShares bounds the shares one game's snapshot tick is cut
	// into for the pool (the loop takes one more).
	maxEncodeShares = 8
	// minParallelClients is the fewest snapshots of one tick worth fanning
	// out: below it, waking a worker costs more than it saves.
	minParallelClients = 8
	// fanOutAbove and fanOutBelow are the hysteresis of the fan-out: a game
	// encodes alone (cheapest in CPU: no worker to wake) until building and
	// encoding a tick's snapshots takes longer than fanOutAbove (many
	// clients, or a loop slowed by contention), then uses the pool until
	// that work takes less than fanOutBelow.
	fanOutAbove = 2 * time.Millisecond
	fanOutBelow = 500 * time.Microsecond
)

// encodeJob is one game's share of a tick's snapshots: clients to build and
// encode at tick, done when finished. Whoever claims it first does it: a
// worker, or the game's loop once its own share is done, so a loop never
// waits for a share still queued behind other games' (only for one a worker
// is working on). The jobs live in the Server and are reused.
type encodeJob struct {
	s       *Server
	clients []*client
	tick    int32
	now     time.Duration
	claimed atomic.Bool
	done    *sync.WaitGroup
}

// run encodes the job's clients with w's scratch if nobody claimed it yet.
func (j *encodeJob) run(w *snapWorker) {
	if !j.claimed.CompareAndSwap(false, true) {
		return
	}
	for _, c := range j.clients {
		j.s.encodeInto(w, c, j.tick, j.now)
	}
	j.done.Done()
}

// NewEncodePool starts workers goroutines (0: one per CPU the runtime uses,
// GOMAXPROCS, less the loop that also encodes; at most MaxEncodeWorkers).
// A pool with no worker encodes nothing itself: its loops do all the work.
func NewEncodePool(workers int) *EncodePool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0) - 1
	}
	workers = min(max(workers, 0), MaxEncodeWorkers)
	p := &EncodePool{jobs: make(chan *encodeJob, encodeQueueLen), workers: workers}
	for range workers {
		p.wg.Go(func() {
			var w snapWorker
			for j := range p.jobs {
				j.run(&w)
			}
		})
	}
	return p
}

// Workers returns the number of worker goroutines.
func (p *EncodePool) Workers() int { return p.workers }

// Close stops the workers once the queued jobs are done. No server may use
// the pool afterwards.
func (p *EncodePool) Close() {
	close(p.jobs)
	p.wg.Wait()
}

// snapWorker is the scratch of one goroutine that builds snapshots.
type snapWorker struct {
	b   snap.Builder
	enc snap.Encoder
	w6  dialect6.SnapWorker // a 0.6 client's translation
}

// snapOut holds a client's encoded snapshot messages between the pool and
// the loop that sends them (buffers reused across ticks).
type snapOut struct {
	data []byte
	ends []int
	ok   bool // encoded; false: nothing to send this tick
}

// noteEncodeTime switches the fan-out to the pool on or off after a
// snapshot tick whose building, encoding and queueing took d (see
// fanOutAbove).
func (s *Server) noteEncodeTime(d time.Duration) {
	switch {
	case s.fanOutPinned:
	case s.pool == nil || s.pool.workers == 0:
		s.fanOut = false
	case !s.fanOut && d > fanOutAbove:
		s.fanOut = true
	case s.fanOut && d < fanOutBelow:
		s.fanOut = false
	}
}

// encodeSnapshots builds and encodes the snapshots of the due clients with
// the pool, into each client's snapOut; the loop takes the first share.
func (s *Server) encodeSnapshots(due []*client, tick int32, now time.Duration) {
	shares := min(s.pool.workers+1, len(due), len(s.encJobs)+1)
	per := (len(due) + shares - 1) / shares
	first := due[:per]
	jobs := s.encJobs[:0]
	for rest := due[per:]; len(rest) > 0; {
		n := min(per, len(rest))
		j := &s.encJobs[len(jobs)]
		jobs = s.encJobs[:len(jobs)+1]
		// A worker may still hold this job from an earlier tick (queued,
		// then done here): it is claimed until the Store below, which
		// publishes the fields; the count is raised before that.
		j.s, j.clients, j.tick, j.now, j.done = s, rest[:n], tick, now, &s.encWG
		s.encWG.Add(1)
		j.claimed.Store(false)
		select {
		case s.pool.jobs <- j:
		default: // the queue is full: the loop does it below
		}
		rest = rest[n:]
	}
	for _, c := range first {
		s.encodeInto(&s.snapW, c, tick, now)
	}
	for i := range jobs { // the shares no worker has started yet
		jobs[i].run(&s.snapW)
	}
	s.encWG.Wait()
}

// encodeInto builds and encodes client c's snapshot of tick with w's
// scratch and copies the messages into c.out.
func (s *Server) encodeInto(w *snapWorker, c *client, tick int32, now time.Duration) {
	c.out.ok = s.encodeSnap(w, c, tick, now)
	if !c.out.ok {
		return
	}
	c.out.data = c.out.data[:0]
	c.out.ends = c.out.ends[:0]
	for i := range w.enc.NumMessages() {
		c.out.data = append(c.out.data, w.enc.Message(i)...)
		c.out.ends = append(c.out.ends, len(c.out.data))
	}
}

// sendEncoded queues client c's encoded messages (from encodeInto).
func (s *Server) sendEncoded(c *client) {
	if !c.out.ok {
		return
	}
	start := 0
	for _, end := range c.out.ends {
		s.sendMsg(c, c.out.data[start:end], netproto.SendFlush)
		if c.state == stateEmpty {
			return
		}
		start = end
	}
}

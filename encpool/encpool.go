package encpool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"twserver/dialect6"
	"twserver/snap"
)

// Bounds of the encode pool.
const (
	// MaxWorkers bounds the pool's goroutines.
	MaxWorkers = 64
	// QueueLen bounds the shares waiting for a worker; a loop that finds
	// the queue full does its share itself.
	QueueLen = 256
	// MaxShares bounds the shares one game's tick is cut into for the pool
	// (the loop takes one more).
	MaxShares = 8
	// MinParallel is the fewest items of one tick worth fanning out: below
	// it, waking a worker costs more than it saves.
	MinParallel = 8
	// FanOutAbove and FanOutBelow are the hysteresis of the fan-out: a game
	// encodes alone (cheapest in CPU: no worker to wake) until a tick's
	// snapshot work takes longer than FanOutAbove (many clients, or a loop
	// slowed by contention), then uses the pool until that work takes less
	// than FanOutBelow.
	FanOutAbove = 2 * time.Millisecond
	// FanOutBelow: see FanOutAbove.
	FanOutBelow = 500 * time.Microsecond
)

// Worker is the scratch of one goroutine that builds snapshots.
type Worker struct {
	// B builds the world's snapshot for one viewer.
	B snap.Builder
	// Enc encodes it (delta, varints, Huffman, parts).
	Enc snap.Encoder
	// W6 translates a 0.6 client's snapshot.
	W6 dialect6.SnapWorker
}

// Encoder is one game's work of a tick: item i (a client due for a
// snapshot) built and encoded with w's scratch. Encode is called once per
// item, from the loop or a pool goroutine, several items at once; it may
// touch only its item and state that is read-only during Fan.Run.
type Encoder interface {
	// Encode does item i with w.
	Encode(w *Worker, i int)
}

// Pool is the fixed set of goroutines shared by the games of a process.
type Pool struct {
	jobs    chan *job
	workers int
	usable  atomic.Int32 // workers the games hand shares to (Limit)
	wg      sync.WaitGroup
}

// New starts workers goroutines (0: one per CPU the runtime uses,
// GOMAXPROCS, less the loop that also encodes; at most MaxWorkers). A pool
// with no worker encodes nothing itself: its loops do all the work.
func New(workers int) *Pool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0) - 1
	}
	workers = min(max(workers, 0), MaxWorkers)
	p := &Pool{jobs: make(chan *job, QueueLen), workers: workers}
	p.usable.Store(int32(workers))
	for range workers {
		p.wg.Go(func() {
			var w Worker
			for j := range p.jobs {
				j.run(&w)
			}
		})
	}
	return p
}

// Workers returns the number of worker goroutines.
func (p *Pool) Workers() int { return p.workers }

// Limit makes the games hand shares to at most n of the workers (0: the
// loops encode alone), for a process whose runtime runs fewer goroutines
// at once than the pool has workers (package procs): a share handed to a
// worker that cannot run beside the loop only costs a goroutine switch.
// Safe from any goroutine; it takes effect at the games' next ticks.
func (p *Pool) Limit(n int) { p.usable.Store(int32(min(max(n, 0), p.workers))) }

// Usable returns the workers the games hand shares to (see Limit).
func (p *Pool) Usable() int { return int(p.usable.Load()) }

// Close stops the workers once the queued shares are done. No game may use
// the pool afterwards.
func (p *Pool) Close() {
	close(p.jobs)
	p.wg.Wait()
}

// job is one share of a game's tick: items [lo, hi) of enc, done when
// finished. Whoever claims it first does it: a worker, or the game's loop
// once its own share is done, so a loop never waits for a share still
// queued behind other games' (only for one a worker is working on). The
// jobs live in the Fan and are reused.
type job struct {
	enc     Encoder
	lo, hi  int
	claimed atomic.Bool
	done    *sync.WaitGroup
}

// run does the share with w's scratch if nobody claimed it yet.
func (j *job) run(w *Worker) {
	if !j.claimed.CompareAndSwap(false, true) {
		return
	}
	for i := j.lo; i < j.hi; i++ {
		j.enc.Encode(w, i)
	}
	j.done.Done()
}

// Fan is one game's side of the pool: whether its ticks fan out, the
// shares of a tick, and the loop's own scratch. The zero Fan, or one of a
// nil pool, never fans out. Loop goroutine only.
type Fan struct {
	// Own is the loop's scratch: the loop encodes with it when it does not
	// fan out, and takes its share of a fanned-out tick with it.
	Own    Worker
	pool   *Pool
	on     bool // the next tick fans out (Note)
	pinned bool // on stays as set (Pin)
	wg     sync.WaitGroup
	jobs   [MaxShares]job
}

// NewFan returns a game's side of pool (nil: the game encodes alone).
func NewFan(pool *Pool) *Fan { return &Fan{pool: pool} }

// Pin fixes whether the ticks fan out, whatever they take (tests
// comparing both ways).
func (f *Fan) Pin(on bool) { f.on, f.pinned = on && f.pool != nil, true }

// Use reports whether a tick of n items fans out to the pool.
func (f *Fan) Use(n int) bool { return f.on && n >= MinParallel }

// Note switches the fan-out on or off after a tick whose snapshot work
// (building, encoding, queueing) took d (see FanOutAbove).
func (f *Fan) Note(d time.Duration) {
	switch {
	case f.pinned:
	case f.pool == nil || f.pool.Usable() == 0:
		f.on = false
	case !f.on && d > FanOutAbove:
		f.on = true
	case f.on && d < FanOutBelow:
		f.on = false
	}
}

// Run does items 0..n-1 of enc with the pool: it cuts them into shares,
// queues all but the first, does the first with Own, then every share no
// worker has started, and returns when all are done.
func (f *Fan) Run(enc Encoder, n int) {
	shares := min(n, len(f.jobs)+1)
	if f.pool != nil {
		shares = min(shares, f.pool.Usable()+1)
	}
	shares = max(shares, 1)
	per := (n + shares - 1) / shares
	jobs := f.jobs[:0]
	for lo := per; lo < n; lo += per {
		j := &f.jobs[len(jobs)]
		jobs = f.jobs[:len(jobs)+1]
		// A worker may still hold this job from an earlier tick (queued,
		// then done here): it is claimed until the Store below, which
		// publishes the fields; the count is raised before that.
		j.enc, j.lo, j.hi, j.done = enc, lo, min(lo+per, n), &f.wg
		f.wg.Add(1)
		j.claimed.Store(false)
		if f.pool != nil {
			select {
			case f.pool.jobs <- j:
			default: // the queue is full: the loop does it below
			}
		}
	}
	for i := range min(per, n) {
		enc.Encode(&f.Own, i)
	}
	for i := range jobs { // the shares no worker has started yet
		jobs[i].run(&f.Own)
	}
	f.wg.Wait()
}

// Out holds one client's encoded snapshot messages between the pool and
// the loop that sends them (buffers reused across ticks).
type Out struct {
	data []byte
	ends []int
	ok   bool // encoded; false: nothing to send this tick
}

// Keep copies the messages of enc into o.
func (o *Out) Keep(enc *snap.Encoder) {
	o.ok = true
	o.data = o.data[:0]
	o.ends = o.ends[:0]
	for i := range enc.NumMessages() {
		o.data = append(o.data, enc.Message(i)...)
		o.ends = append(o.ends, len(o.data))
	}
}

// Skip marks o as holding nothing to send this tick.
func (o *Out) Skip() { o.ok = false }

// Len returns the number of messages o holds (0 after Skip).
func (o *Out) Len() int {
	if !o.ok {
		return 0
	}
	return len(o.ends)
}

// Msg returns message i (valid until the next Keep).
func (o *Out) Msg(i int) []byte {
	start := 0
	if i > 0 {
		start = o.ends[i-1]
	}
	return o.data[start:o.ends[i]]
}

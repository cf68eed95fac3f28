package session

import "time"

// MaxClientPacketsPerSecond bounds the datagrams processed per connected
// client and second (the 0.7.5 client sends about 50 inputs plus a few
// messages per second). It bounds the work a peer can cause with floods of
// inputs, RESEND-flagged packets or map requests.
const MaxClientPacketsPerSecond = 250

// MaxDownloadPacketsPerSecond bounds the datagrams processed per second
// from a client that is not in game yet (handshake, map download, READY).
// A 0.6 or DDNet client asks for every map chunk with a packet of its own
// and keeps many requests in flight: on a LAN it sends hundreds within a
// few milliseconds (the 0.6 variant of dm1 has 417 chunks), and the in-game
// budget dropped one of them, which stalled the download for the client's
// one-second resend. What a downloading client can cause stays bounded:
// the chunks answered per map change by mapdl.MaxRequestsFactor, the clients
// before the game by the server's pre-game bounds.
const MaxDownloadPacketsPerSecond = 2000

// Budget is a connection's packet budget: a token bucket of a rate per
// second holding at most one second's worth, kept as the time at which it
// would be full again (the generic cell rate algorithm), in integer
// nanoseconds of the caller's monotonic clock. It is a value the game loop
// owns (no lock, no allocation). The zero Budget refuses everything.
type Budget struct {
	every time.Duration // the time one packet's token takes to come back
	limit time.Duration // how far ahead of now full may get: one second less one token
	full  time.Duration // when the bucket is full again
}

// NewBudget returns a full Budget of perSecond packets a second (at least
// 1, at most 1e9).
func NewBudget(perSecond int) Budget {
	every := time.Second / time.Duration(min(max(perSecond, 1), 1e9))
	return Budget{every: every, limit: time.Second - every}
}

// NewClientBudget returns a connection's in-game packet budget:
// MaxClientPacketsPerSecond, a burst of one second's worth.
func NewClientBudget() Budget { return NewBudget(MaxClientPacketsPerSecond) }

// NewDownloadBudget returns a connection's packet budget for the time
// before it enters the game: MaxDownloadPacketsPerSecond, a burst of one
// second's worth.
func NewDownloadBudget() Budget { return NewBudget(MaxDownloadPacketsPerSecond) }

// Allow takes a packet's token at now (the caller's monotonic clock, never
// going back) and reports whether there was one.
func (b *Budget) Allow(now time.Duration) bool {
	if b.every == 0 {
		return false
	}
	full := max(b.full, now)
	if full-now > b.limit {
		return false
	}
	b.full = full + b.every
	return true
}

// Unlimited makes the budget allow every packet (tests that run faster
// than real time).
func (b *Budget) Unlimited() { b.every, b.limit = 1, time.Duration(1<<62) }

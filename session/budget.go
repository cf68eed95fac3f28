package session

import "golang.org/x/time/rate"

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

// NewClientBudget returns a connection's packet budget: a token bucket of
// MaxClientPacketsPerSecond per second with a burst of one second's worth.
func NewClientBudget() *rate.Limiter {
	return rate.NewLimiter(MaxClientPacketsPerSecond, MaxClientPacketsPerSecond)
}

// NewDownloadBudget returns a connection's packet budget for the time
// before it enters the game: MaxDownloadPacketsPerSecond, burst of one
// second's worth.
func NewDownloadBudget() *rate.Limiter {
	return rate.NewLimiter(MaxDownloadPacketsPerSecond, MaxDownloadPacketsPerSecond)
}

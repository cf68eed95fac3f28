package web

import "twserver/internal/httpserve"

// Bounds of the web endpoint's connections, requests and streams. A page
// holds one live stream and one connection for its polls (app.js makes
// them one after the other), so MaxStreams viewers fit in all, and
// MaxStreamsPerAddr from one address (one IPv4 address or IPv6 /64,
// httpserve.AddrKey). Over a bound the answer is at once: a connection is
// closed (after a 503 written without waiting: httpserve.Listener), a
// request or stream gets 503 with Retry-After.
const (
	// MaxConnections bounds the open HTTP connections of all clients
	// (live streams included). At the bound the connection idle longest
	// (keep-alive, or not yet sent a whole request) is closed for the
	// new one; with none idle the new one is refused.
	MaxConnections = 512
	// MaxConnsPerAddr bounds the open connections of one address
	// (httpserve.AddrKey); more are refused at once. Addresses of
	// Options.TrustedProxies are not bounded (their clients are many).
	MaxConnsPerAddr = 24
	// MaxRequests bounds the requests being answered at a time (live
	// streams not counted); more get 503.
	MaxRequests = 256
	// MaxRequestsPerAddr bounds the requests of one client address being
	// answered at a time (live streams not counted); more get 503.
	MaxRequestsPerAddr = 8
	// MaxStreams bounds the live streams (/events) of all games; more get 503.
	MaxStreams = 200
	// MaxStreamsPerAddr bounds the live streams of one client address;
	// more get 503.
	MaxStreamsPerAddr = 8
	// MaxDownloads bounds the recordings being downloaded at a time (they
	// count among the requests too); more get 503. A download lasts as
	// long as its reader keeps up (DownloadStallTimeout a DownloadChunk),
	// so without a bound of their own slow readers from a few addresses
	// would hold every request's place and the page would answer 503.
	MaxDownloads = 16
	// MaxDownloadsPerAddr bounds the downloads of one client address; more
	// get 503.
	MaxDownloadsPerAddr = 2
	// RetryAfter is the Retry-After (seconds) of a 503 over a bound (the
	// listener's, httpserve.RetryAfter, for a refused connection).
	RetryAfter = httpserve.RetryAfter
)

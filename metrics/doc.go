// Package metrics owns a running server's operator figures and serves them
// over HTTP: /metrics in the Prometheus text format and /healthz for
// orchestrators.
//
// The figures are plain atomic counters and gauges: Gauges (slots by state
// and dialect, refusals, events, snapshot sizes in a SizeHist, datagrams
// sent), TickTiming (tick work and lateness in DurationHists, ticks skipped
// and dropped, the recent window of the console `stats`), and edge.Stats
// (the reader's packet counters). The game loop of package server owns one
// Gauges and one TickTiming and publishes into them (the loop is their one
// writer: ObserveLate, ObserveWork and Summary are the loop's); anything
// may read them at any time, without a lock, and the hot path allocates
// nothing for them. This package does not import server: an Endpoint reads
// a Source, which *server.Server implements.
//
// Nothing here touches the game loop. The collector reads the figures
// when Prometheus scrapes and writes them in the text exposition format
// 0.0.4 itself (expo.go): families sorted by name, labels sorted, values
// escaped, into buffers kept for the next scrape, so a scrape allocates
// nothing once they have grown. No Prometheus client library is linked:
// it would cost the process about 3 MB of resident memory for features
// this endpoint does not use. Names follow the Prometheus conventions: teeworlds_* for
// what a player or a browser sees, twserver_* for the implementation; no
// label holds a player name or an address.
package metrics

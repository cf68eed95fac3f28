// Package mapdl owns the 0.7 in-game map download under loss: the state
// of one client's download as a value its slot holds (Download: chunks
// sent and asked for, the tail-loss probe's timeout and backoff, how many
// copies of each chunk go out), the chunking of the map into MAP_DATA
// messages paced on the client's acks, and the bounds that keep a
// download from flooding the connection (Lookahead, MaxInFlight,
// ProbeBatch, ProbeMax).
//
// It never touches a socket: it queues chunks on the client's
// netproto.Conn and asks the loop (Sender) to write them out. Only the
// game loop goroutine calls it, for the slots it owns. The 0.6 download
// (the map's 0.6 variant, one chunk per request: Variant6, Answer6) uses
// Download's counters only; the announcements of both dialects are
// PackChange and Variant6.PackChange.
package mapdl

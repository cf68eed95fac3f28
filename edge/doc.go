// Package edge is the server's edge towards the network: everything that
// happens to a datagram before it belongs to a client slot, for both
// protocol dialects (0.7, and 0.6 with DDNet's extensions), and the rules
// that decide whether a connection request gets a slot.
//
// It owns:
//   - the reader's screening of every datagram (Edge.Screen): sizes,
//     framing, tokens and their rotation (NewTokens, RotateTokens), the
//     stateless handshakes of each dialect (edge7.go, edge6.go with its
//     threat model), the memory of DDNet ACCEPTs just handed on;
//   - the connection request a dialect's edge let through (Request), read
//     once (Edge.Request), so the loop never looks at a stranger's framing
//     again: it refuses in the request's dialect (AppendClose) or starts
//     the slot's Conn (Start);
//   - the connectionless server info of both dialects (BuildInfo7,
//     BuildInfo6 from one InfoHead, published as an InfoSnapshot) and the
//     budgets that bound every reply to an unproven address (Budget and
//     the *PerSecond constants): tokens, info, connects, the vanilla 0.6
//     anti-spoof handshake;
//   - the counters of dropped and handled packets (Stats);
//   - the table of addresses that own a slot (PeerTable);
//   - the hand-off of master registration packets (Master);
//   - the ban list as it is applied to connection requests (BanList);
//   - the pre-game bounds: the share of slots that may be connecting, the
//     per-address bound, eviction of a stalled client and the stage
//     timeouts (AdmitPregame, PregameSlot.Stalled), over the loop's view of
//     its slots (Slots).
//
// Each dialect's edge sits behind one interface (dialect, dialect.go);
// the dialect of a stranger is decided once, by the framing of its
// datagram, in Screen, and read back the same way in Request.
//
// Goroutines. The edge never imports the game loop (package server): the
// loop holds an *Edge and a BanList and calls them.
//   - The reader goroutine (or the loop while the reader waits for it,
//     in paced reading) calls Screen, with the token generator it owns
//     (NewTokens, RotateTokens); Screen alone touches Budget and the
//     ACCEPT memory (Request takes the decompression budget, which is safe
//     from any goroutine).
//   - The loop calls Publish (a new InfoSnapshot, immutable afterwards),
//     Peers.Add and Peers.Remove, Request, BuildInfo7/BuildInfo6,
//     AdmitPregame and Stalled, and every BanList method; Info may be read
//     by any goroutine.
//   - Stats are atomics: any goroutine reads them; the loop adds its own
//     drops (bad messages, floods).
//   - Master and the write function given to New are set before the
//     reader starts; write must not block and must not keep its buffer.
package edge

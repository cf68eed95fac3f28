// Package edge is the server's edge towards the network: everything that
// happens to a datagram before it belongs to a client slot, for both
// protocol dialects (0.7, and 0.6 with DDNet's extensions).
//
// It owns:
//   - the reader's screening of every datagram (Edge.Screen): sizes,
//     framing, tokens and their rotation (NewTokens, RotateTokens), the
//     stateless handshakes of each dialect (edge7.go, edge6.go), the
//     memory of DDNet ACCEPTs just handed on;
//   - the connectionless server info of both dialects and the budgets
//     that bound every reply to an unproven address (Budget, the
//     *PerSecond constants): tokens, info, connects, the vanilla 0.6
//     anti-spoof handshake;
//   - the counters of dropped and handled packets (Stats);
//   - the table of addresses that own a slot (PeerTable);
//   - the hand-off of master registration packets (Master);
//   - the connection request a dialect's edge let through (Request),
//     read once (Edge.Request), so the loop never looks at a stranger's
//     framing again.
//
// Each dialect's edge sits behind one interface (dialect, dialect.go);
// the dialect of a stranger is decided once, by the framing of its
// datagram, in Screen.
//
// Goroutines. The edge never imports the game loop (package server): the
// loop holds an *Edge and calls it.
//   - The reader goroutine (or the loop while the reader waits for it,
//     in paced reading) calls Screen, with the token generator it owns;
//     Screen alone touches Budget and the ACCEPT memory.
//   - The loop calls Publish (a new InfoSnapshot, immutable afterwards),
//     Peers.Add and Peers.Remove, Request, and reads Info.
//   - Stats are atomics: any goroutine reads them; the loop adds its own
//     drops (bad messages, floods).
//   - Master and the write function given to New are set before the
//     reader starts; write must not block.
package edge

// Package encpool owns the snapshot encode pool: a fixed set of goroutines,
// shared by every game of a process, that run the per-client snapshot work
// of a game's tick (building, storing, delta, varints, Huffman, parts) in
// shares, and each game's side of it (Fan: when to fan out, the shares of
// one tick, the loop's own scratch). Each goroutine owns its scratch
// (Worker); a client's encoded messages wait in its Out until the loop
// sends them.
//
// It knows neither the game nor its clients: the loop hands it a tick's
// work as an Encoder over items 0..n-1 and queues the messages itself, in
// slot order, after Fan.Run returns, so what is sent, and in which order,
// does not depend on the pool. Pool is safe for concurrent use by any
// number of games; a Fan belongs to one game loop.
package encpool

// Package gamedemo records a running world into a 0.7 demo (Game): the
// snapshot of every snapshot tick and the game messages sent to everybody,
// from free view or from one player's view. The server's own demo
// recorder and the demos made from teehistorian files (teehist/replay)
// both call it, so the two hold the same snapshots; it owns no file and no
// goroutine (the caller takes the encoder's bytes).
package gamedemo

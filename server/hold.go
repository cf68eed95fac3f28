package server

import (
	"context"
	"sync"
)

// Hold stops the game loop between two wake-ups until release is called:
// no tick, no send, no console line (the reader may still queue up to
// RecvQueueLen datagrams). It returns once the loop waits, or ctx's error.
// A live upgrade (package handover) holds every game while the new process
// starts; a released loop catches up at most MaxCatchUpTicks.
func (s *Server) Hold(ctx context.Context) (release func(), err error) {
	h := &holdReq{held: make(chan struct{}), release: make(chan struct{})}
	select {
	case s.holds <- h:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case <-h.held: // the loop waits for the release
		return sync.OnceFunc(func() { close(h.release) }), nil
	case <-ctx.Done():
		close(h.release) // a loop that takes h later goes on at once
		return nil, ctx.Err()
	}
}

// holdReq is a Hold: the loop closes held once it waits, and goes on when
// release is closed.
type holdReq struct{ held, release chan struct{} }

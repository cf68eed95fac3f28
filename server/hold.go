package server

import "context"

// Hold stops the game loop between two wake-ups until release is called:
// no tick, no send, no console line (the reader may still queue up to
// RecvQueueLen datagrams). It returns once the loop waits, or ctx's error.
// A live upgrade (package handover) holds every game while the new process
// starts; a released loop catches up at most MaxCatchUpTicks.
func (s *Server) Hold(ctx context.Context) (release func(), err error) {
	h := make(chan struct{})
	select {
	case s.holds <- h:
		<-h // the loop waits for the release
		return func() { h <- struct{}{} }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

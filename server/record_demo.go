package server

import "time"

// demoRecorder is the per-game 0.7 demo state (filled in by the demo writer).
type demoRecorder struct{}

func (s *Server) demoStart()                         {}
func (s *Server) demoEnd()                           {}
func (s *Server) demoAfterTick()                     {}
func (s *Server) demoDrop(c *client, reason string)  {}
func (s *Server) demoWait(deadline <-chan time.Time) {}

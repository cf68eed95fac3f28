package server

import (
	"twserver/gamemsg"
	"twserver/session"
)

// botHost is the loop's side of the bots (package botslots).
type botHost struct{ s *Server }

func (h botHost) SlotFree(cid int) bool { return h.s.clients[cid].state == session.Empty }
func (h botHost) Humans() int           { return h.s.numClients() }
func (h botHost) Changed()              { h.s.publishInfo() }
func (h botHost) Out(line string)       { h.s.consoleOut(line) }
func (h botHost) SendAll(m gamemsg.Message) {
	for _, o := range h.s.clients {
		if o.state == session.Ingame {
			h.s.sendGame(o, m, false)
		}
	}
}

// sendBotInfos sends c the infos of every bot.
func (s *Server) sendBotInfos(c *client) {
	for cid := range s.clients {
		if b := s.bots.At(cid); b != nil {
			s.sendGame(c, s.bots.ClientInfo(b), false)
		}
	}
}

package server

import (
	"fmt"
	"slices"
	"time"

	"twserver/botslots"
	"twserver/netproto"
	"twserver/session"
	"twserver/teehist"
	"twserver/vote"
	"twserver/world"
	"twserver/worldstate"
)

// WorldHandover is a game's world as it passes at a live upgrade: its map, its state (package worldstate), its tick schedule.
type WorldHandover struct {
	Map   string             `json:"map"`
	CRC   uint32             `json:"crc"`
	Start int64              `json:"start"` // tick 0's start, Unix ns: the ticks go on on time (a sleeping game's at most 0.5 s late)
	State []byte             `json:"state"`
	Game  string             `json:"game,omitempty"` // the game UUID of the old process's teehistorian (the new one's prev_game_uuid)
	Bots  []botslots.Carried `json:"bots,omitempty"` // the bots' skill and fill (their players are in State)
	Vote  *vote.Carried      `json:"vote,omitempty"` // the running vote, its time left and ballots
}

// ExportWorld returns the world for a live upgrade's new process (loop held or not running).
func (s *Server) ExportWorld() WorldHandover {
	return WorldHandover{Map: s.curMap.Name, CRC: s.curMap.CRC, State: worldstate.Append(nil, s.world), Game: s.rec.GameID().String(), Bots: s.bots.Export(), Vote: s.vote.Export(s.now()), // a sleeping world waits:
		Start: max(s.sched.Start().UnixNano(), time.Now().Add(-time.Duration(s.world.CurrentTick())*netproto.TickDuration-time.Second/2).UnixNano())}
}

// AdoptGame goes on with the game of ExportWorld and ExportSlots before Run: world, tick schedule, clients, bots (new brains, their skill and fill kept), the vote.
func (s *Server) AdoptGame(wh WorldHandover, slots []session.Handover) error {
	if m := s.curMap; wh.Map != m.Name || wh.CRC != m.CRC {
		return fmt.Errorf("the game runs map %s (crc %08x), this process has %s (%08x)", wh.Map, wh.CRC, m.Name, m.CRC)
	} else if err := worldstate.Read(s.world, wh.State); err != nil {
		return err // the caller refuses the handover: the old process goes on
	}
	s.sched.SetStart(time.Unix(0, wh.Start))
	for cid := range world.MaxClients { // a player whose client did not pass leaves, a bot's stays
		if s.world.HasPlayer(cid) && !slices.ContainsFunc(slots, func(h session.Handover) bool { return h.ID == cid && h.State == session.Ingame }) && !s.bots.Adopt(cid, wh.Bots) {
			s.world.RemovePlayer(cid)
		}
	}
	prev, _ := teehist.ParseUUID(wh.Game)             // none when the old process did not record
	s.rec.GoOn(prev, worldstate.Append(nil, s.world)) // the teehistorian goes on from this world, after prev
	if err := s.AdoptSlots(slots); err != nil {
		return err
	}
	return s.vote.Adopt(wh.Vote, s.now(), (*voteSlots)(s)) // a malformed vote refuses the handover, as a malformed world
}

// EndRecordings ends the game's recordings (teehistorian, demo) with their closing records: a live upgrade's old process, its loop held, before it exits.
func (s *Server) EndRecordings() { s.rec.Stop() }

// ExportSlots returns the connected clients for a live upgrade's new process (loop held or not running).
func (s *Server) ExportSlots() []session.Handover {
	var out []session.Handover
	for _, c := range s.clients {
		if st := c.conn; c.state != session.Empty && (st.State() == netproto.StateOnline || st.State() == netproto.StatePending) {
			out = append(out, session.Handover{ID: c.id, State: c.state, Addr: c.addr, Conn: c.conn.Export(), Version: c.version,
				DDNetVersion: c.ddnetVersion, Name: c.name, Clan: c.clan, Country: c.country, Skin: c.skin, Rcon: c.rcon.Authed})
		}
	}
	return out
}

// AdoptSlots takes over the clients of ExportSlots before Run (it stops at a slot it cannot take): one in game whose
// player the world has (AdoptGame) plays on, with a full snapshot next; any other past its INFO joins as after a map change.
func (s *Server) AdoptSlots(slots []session.Handover) error {
	now := s.now()
	defer s.publishInfo() // the browsers see the clients
	for _, h := range slots {
		if h.ID < 0 || h.ID >= len(s.clients) || s.clients[h.ID].state != session.Empty || h.State == session.Empty {
			return fmt.Errorf("slot %d: not a free slot of this game", h.ID)
		}
		c := s.clients[h.ID]
		c.openConn() // an empty slot: reset when it was freed
		if err := c.conn.Import(h.Conn, now); err != nil {
			return fmt.Errorf("slot %d: %w", h.ID, err) // the caller refuses the handover
		}
		c.addr, c.created, c.progressAt, c.version, c.ddnetVersion = h.Addr, now, now, h.Version, h.DDNetVersion
		c.name, c.clan, c.country, c.skin, c.rcon.Authed = h.Name, h.Clan, h.Country, h.Skin, h.Rcon
		c.budget, c.dlBudget = session.NewClientBudget(), session.NewDownloadBudget()
		if d := c.conn.Dialect(); d.Is6() {
			s.trans6.Connect(c.id, d == netproto.DialectDDNet)
		}
		s.rec.Join(c.id, !c.conn.Dialect().Is6())
		s.byAddr[c.addr] = c.id
		s.edge.Peers.Add(c.addr, c.id)
		c.state = min(h.State, session.Auth)
		if c.entered = h.State == session.Ingame && s.world.InGame(h.ID); c.entered {
			c.state, c.lastAckedTick, c.snapRate = session.Ingame, -1, session.SnapRateFull // a full snapshot at the next snapshot tick
			c.conn.SetCopies(1)
		} else if h.State > session.Auth {
			c.state = session.Connecting
			s.sendMapChange(c)
		}
		s.flushConn(c)
	}
	return nil
}

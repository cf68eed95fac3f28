package server

import (
	"time"

	"twserver/live"
	"twserver/metrics"
	"twserver/observe"
	"twserver/session"
	"twserver/world"
	"twserver/world/collision"
)

// Live frames: about every FrameEvery ticks, and only while the hub wants
// frames (a viewer is attached or an API request asked), the loop fills one
// live.Frame (the world's all-seeing snapshot, the players, the last events)
// from the hub's pool and publishes it; every viewer shares it. Without
// viewers the loop only keeps the feed of the last events. Neither
// allocates (the pooled frames keep their buffers).

// FrameEvery is the mean number of ticks between published frames: 10 per
// second, what the page's minimap needs and no more (every viewer costs a
// write per frame). A frame goes out at the first snapshot tick at or after
// each multiple of FrameEvery (the loop builds on snapshot ticks, every
// second one, so the frames are 4 and 6 ticks apart).
const FrameEvery = 5

// liveState is the loop's side of the live frames.
type liveState struct {
	hub   *live.Hub
	feed  live.Feed      // the last events
	next  int32          // the tick of the next frame
	layer *live.MapLayer // game layer of of
	of    any            // the map layer was built for (s.curMap)
	gen   uint32
}

// Live returns the game's frame hub. Safe from any goroutine.
func (s *Server) Live() *live.Hub { return s.live.hub }

// liveEvent adds e to the ring of the last events (no allocation).
func (s *Server) liveEvent(e live.Event) {
	e.Tick = s.world.CurrentTick()
	s.live.feed.Add(e)
}

// liveChat records a public chat line (cid -1: the server).
func (s *Server) liveChat(cid int, name, text string) {
	s.liveEvent(live.Event{Kind: live.EventChat, Client: cid, Name: name, Text: text})
}

// liveKill records a kill message (killer, victim, weapon).
func (s *Server) liveKill(killer, victim, weapon int32) {
	s.liveEvent(live.Event{Kind: live.EventKill, Client: int(killer), Name: s.liveName(int(killer)),
		Victim: int(victim), VictimName: s.liveName(int(victim)), Weapon: int(weapon)})
}

// liveName is the name of the client in slot cid ("" when none).
func (s *Server) liveName(cid int) string {
	if cid < 0 || cid >= len(s.clients) || s.clients[cid].state == session.Empty {
		if b := s.bots.At(cid); b != nil {
			return b.Name
		}
		return ""
	}
	return s.clients[cid].name
}

// livePlayer records a player entering or leaving.
func (s *Server) livePlayer(kind observe.EventKind, c *client) {
	k := live.EventJoin
	if kind == observe.EventPlayerLeave {
		k = live.EventLeave
	}
	s.liveEvent(live.Event{Kind: k, Client: c.id, Name: c.name})
}

// publishFrame builds and publishes the frame of tick if one is wanted.
func (s *Server) publishFrame(tick int32, now time.Time) {
	l := &s.live
	if (tick < l.next && tick >= l.next-2*FrameEvery) || !l.hub.Wanted(now) {
		return // not yet (a tick far below next: the map changed, the tick restarted)
	}
	l.next = tick - tick%FrameEvery + FrameEvery
	f := l.hub.NewFrame()
	f.Tick, f.Time = tick, now
	f.Game = live.Game{ServerName: s.cfg.Server.Name, Map: s.curMap.Name, GameType: s.gameTypeName(), MaxClients: s.cfg.Server.MaxClients}
	if st := s.rec.Status(); st.TeehistActive {
		f.Game.Recording[0] = st.TeehistPath
	}
	if st := s.rec.Status(); st.DemoActive {
		f.Game.Recording[1] = st.DemoPath
	}
	f.Map = s.liveLayer()
	_ = s.world.Snap(-1, f) // entities beyond live.MaxItemWords are left out
	for _, c := range s.clients {
		b := s.bots.At(c.id)
		if (c.state != session.Ingame && b == nil) || !s.world.HasPlayer(c.id) {
			continue
		}
		team := s.world.Team(c.id)
		p := live.Player{ID: c.id, Name: c.name, Clan: c.clan, Country: int(c.country), Score: s.world.Score(c.id),
			Team: team, Ping: c.latencyMs, IsPlayer: team != world.TeamSpectators, Bot: b != nil, Client: live.ClientBot}
		if b != nil {
			p.Name, p.Country = b.Name, -1
		} else {
			p.Client = live.ClientKind(c.dialect() == metrics.Dialect07, c.ddnetVersion > 0)
		}
		f.Players = append(f.Players, p)
	}
	f.Events = l.feed.AppendTo(f.Events)
	l.hub.Publish(f)
}

// liveLayer returns the game layer of the current map, built once per map.
func (s *Server) liveLayer() *live.MapLayer {
	l := &s.live
	if l.of == any(s.curMap) && l.layer != nil {
		return l.layer
	}
	col := s.world.Collision()
	l.gen++
	l.of = s.curMap
	l.layer = live.NewMapLayer(l.gen, s.curMap.Name, col.Width(), col.Height(), func(x, y int) byte {
		return byte(col.GetTile(x*collision.TileSize, y*collision.TileSize))
	})
	return l.layer
}

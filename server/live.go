package server

import (
	"time"

	"twserver/live"
	"twserver/metrics"
	"twserver/observe"
	"twserver/world"
)

// Live frames (issue 20): on every FrameEvery-th tick, and only while the
// hub wants frames (a viewer is attached or an API request asked), the loop
// builds one live.Frame (the world's all-seeing snapshot, the players, the
// last events) and publishes it; every viewer shares it. Without viewers
// the loop only keeps the ring of the last events (no allocation).

// FrameEvery is the number of ticks between published frames (12.5 per second).
const FrameEvery = 4

// liveState is the loop's side of the live frames.
type liveState struct {
	hub    *live.Hub
	events [live.MaxEvents]live.Event // ring of the last events
	seq    uint64                     // Seq of the newest event
	layer  *live.MapLayer             // game layer of layerOf
	of     any                        // the map layer was built for (s.curMap)
	gen    uint32
}

// Live returns the game's frame hub. Safe from any goroutine.
func (s *Server) Live() *live.Hub { return s.live.hub }

// liveEvent adds e to the ring of the last events (no allocation).
func (s *Server) liveEvent(e live.Event) {
	l := &s.live
	l.seq++
	e.Seq = l.seq
	e.Tick = s.world.CurrentTick()
	l.events[l.seq%live.MaxEvents] = e
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
	if cid < 0 || cid >= len(s.clients) || s.clients[cid].state == stateEmpty {
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
	if tick%FrameEvery != 0 || !l.hub.Wanted(now) {
		return
	}
	f := l.hub.NewFrame()
	f.Tick, f.Time = tick, now
	f.Game = live.Game{ServerName: s.cfg.Server.Name, Map: s.curMap.Name, GameType: s.gameTypeName(), MaxClients: s.cfg.Server.MaxClients}
	f.Map = s.liveLayer()
	_ = s.world.Snap(-1, f) // entities beyond live.MaxItemWords are left out
	for _, c := range s.clients {
		if c.state != stateIngame || !s.world.HasPlayer(c.id) {
			continue
		}
		team := s.world.Team(c.id)
		f.Players = append(f.Players, live.Player{ID: c.id, Name: c.name, Clan: c.clan, Country: int(c.country),
			Score: s.world.Score(c.id), Team: team, Ping: c.latencyMs, Client: liveClientKind(c),
			IsPlayer: team != world.TeamSpectators})
	}
	n := min(l.seq, live.MaxEvents)
	f.Events = make([]live.Event, 0, n)
	for q := l.seq - n + 1; q <= l.seq && n > 0; q++ {
		f.Events = append(f.Events, l.events[q%live.MaxEvents])
	}
	l.hub.Publish(f)
}

// liveClientKind names the client's protocol for the page.
func liveClientKind(c *client) string {
	switch {
	case c.dialect() == metrics.Dialect07:
		return live.Client07
	case c.ddnetVersion > 0:
		return live.ClientDDNet
	}
	return live.Client06
}

// liveLayer returns the game layer of the current map, built once per map.
func (s *Server) liveLayer() *live.MapLayer {
	l := &s.live
	if l.of == any(s.curMap) && l.layer != nil {
		return l.layer
	}
	col := s.world.Collision()
	w, h := col.Width(), col.Height()
	l.gen++
	l.of = s.curMap
	l.layer = &live.MapLayer{Gen: l.gen, Name: s.curMap.Name, Width: w, Height: h}
	if w*h <= live.MaxMapTiles {
		l.layer.Tiles = make([]byte, w*h)
		for y := range h {
			for x := range w {
				l.layer.Tiles[y*w+x] = byte(col.GetTile(x*world.TileSize, y*world.TileSize))
			}
		}
	}
	return l.layer
}

package web

import (
	"encoding/json"
	"net/http"
	"time"

	"twserver/live"
	"twserver/world"
)

// The JSON API. Field names of a client follow DDNet's master
// servers.json where they overlap (name, clan, country, score, is_player).

// apiClient is one client in game.
type apiClient struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Clan     string `json:"clan"`
	Country  int    `json:"country"`
	Score    int    `json:"score"`
	IsPlayer bool   `json:"is_player"`
	Team     int    `json:"team"`
	Ping     int    `json:"ping"`
	Client   string `json:"client"`
}

// apiGame is one game's state.
type apiGame struct {
	Port       int         `json:"port"`
	Name       string      `json:"name"`
	Map        string      `json:"map"`
	GameType   string      `json:"game_type"`
	State      string      `json:"state"`
	Tick       int32       `json:"tick"`
	ScoreLimit int         `json:"score_limit"`
	TimeLimit  int         `json:"time_limit"`
	Teams      bool        `json:"teams"`
	TeamScore  [2]int      `json:"team_score"`
	MaxClients int         `json:"max_clients"`
	Clients    []apiClient `json:"clients"`
}

// apiEntities are the positions on the minimap (world units, 32 per tile).
type apiEntities struct {
	Tees        []apiTee   `json:"tees"`
	Flags       []apiThing `json:"flags"`
	Projectiles []apiThing `json:"projectiles"`
	Pickups     []apiThing `json:"pickups"`
	Lasers      []apiLaser `json:"lasers"`
}

type apiTee struct {
	ID     int     `json:"id"`
	X      int32   `json:"x"`
	Y      int32   `json:"y"`
	VX     float32 `json:"vx"`
	VY     float32 `json:"vy"`
	Weapon int32   `json:"weapon"`
}

type apiThing struct {
	X    int32 `json:"x"`
	Y    int32 `json:"y"`
	Type int32 `json:"type"`
}

type apiLaser struct {
	X     int32 `json:"x"`
	Y     int32 `json:"y"`
	FromX int32 `json:"from_x"`
	FromY int32 `json:"from_y"`
}

// apiFrame is one message of the live stream.
type apiFrame struct {
	Version  int         `json:"version"`
	Seq      uint64      `json:"seq"`
	Time     int64       `json:"time_ms"`
	MapGen   uint32      `json:"map_gen"`
	Game     apiGame     `json:"game"`
	Entities apiEntities `json:"entities"`
}

// apiEvent is one line of the chat and kill feed.
type apiEvent struct {
	Seq        uint64 `json:"seq"`
	Tick       int32  `json:"tick"`
	Kind       string `json:"kind"`
	Client     int    `json:"client"`
	Name       string `json:"name"`
	Victim     int    `json:"victim,omitempty"`
	VictimName string `json:"victim_name,omitempty"`
	Weapon     int    `json:"weapon,omitempty"`
	Text       string `json:"text,omitempty"`
}

// Game states of apiGame.State.
const (
	StateWarmup    = "warmup"
	StateRunning   = "running"
	StatePaused    = "paused"
	StateRoundOver = "round_over"
	StateGameOver  = "game_over"
	StateEmpty     = "unknown"
)

// 0.7 GAMESTATEFLAG_* and GAMEFLAG_TEAMS.
const (
	gsWarmup    = 1
	gsRoundOver = 4
	gsGameOver  = 8
	gsPaused    = 16
	gsCountdown = 32
	gfTeams     = 1
)

// gameOf describes the game of frame f.
func gameOf(port int, f *live.Frame) apiGame {
	g := apiGame{Port: port, Name: f.Game.ServerName, Map: f.Game.Map, GameType: f.Game.GameType,
		Tick: f.Tick, MaxClients: f.Game.MaxClients, State: StateEmpty, Clients: make([]apiClient, 0, len(f.Players))}
	for _, it := range f.Items {
		d := f.Data(it)
		switch it.Type {
		case world.ObjGameData:
			if len(d) >= 2 {
				g.State = stateName(d[1])
			}
		case world.ObjGameDataTeam:
			if len(d) >= 2 {
				g.TeamScore = [2]int{int(d[0]), int(d[1])}
			}
		case world.ObjDeGameInfo:
			if len(d) >= 3 {
				g.Teams = d[0]&gfTeams != 0
				g.ScoreLimit, g.TimeLimit = int(d[1]), int(d[2])
			}
		}
	}
	for _, p := range f.Players {
		g.Clients = append(g.Clients, apiClient{ID: p.ID, Name: p.Name, Clan: p.Clan, Country: p.Country,
			Score: p.Score, IsPlayer: p.IsPlayer, Team: p.Team, Ping: p.Ping, Client: p.Client})
	}
	return g
}

// stateName names the 0.7 game state flags.
func stateName(flags int32) string {
	switch {
	case flags&gsGameOver != 0:
		return StateGameOver
	case flags&gsRoundOver != 0:
		return StateRoundOver
	case flags&gsPaused != 0:
		return StatePaused
	case flags&(gsWarmup|gsCountdown) != 0:
		return StateWarmup
	}
	return StateRunning
}

// entitiesOf lists the entities of frame f.
func entitiesOf(f *live.Frame) apiEntities {
	e := apiEntities{Tees: []apiTee{}, Flags: []apiThing{}, Projectiles: []apiThing{}, Pickups: []apiThing{}, Lasers: []apiLaser{}}
	for _, it := range f.Items {
		d := f.Data(it)
		switch it.Type {
		case world.ObjCharacter:
			if len(d) >= 5 {
				t := apiTee{ID: int(it.ID), X: d[1], Y: d[2], VX: float32(d[3]) / 256, VY: float32(d[4]) / 256}
				if len(d) > world.CharWeapon {
					t.Weapon = d[world.CharWeapon]
				}
				e.Tees = append(e.Tees, t)
			}
		case world.ObjFlag:
			if len(d) >= 3 {
				e.Flags = append(e.Flags, apiThing{X: d[0], Y: d[1], Type: d[2]})
			}
		case world.ObjProjectile:
			if len(d) >= 5 {
				e.Projectiles = append(e.Projectiles, apiThing{X: d[0], Y: d[1], Type: d[4]})
			}
		case world.ObjPickup:
			if len(d) >= 3 {
				e.Pickups = append(e.Pickups, apiThing{X: d[0], Y: d[1], Type: d[2]})
			}
		case world.ObjLaser:
			if len(d) >= 4 {
				e.Lasers = append(e.Lasers, apiLaser{X: d[0], Y: d[1], FromX: d[2], FromY: d[3]})
			}
		}
	}
	return e
}

// frameJSON is the live stream's encoding of a frame (shared by viewers).
func frameJSON(port int) func(*live.Frame) []byte {
	return func(f *live.Frame) []byte {
		var mapGen uint32
		if f.Map != nil {
			mapGen = f.Map.Gen
		}
		b, _ := json.Marshal(apiFrame{Version: APIVersion, Seq: f.Seq, Time: f.Time.UnixMilli(), MapGen: mapGen,
			Game: gameOf(port, f), Entities: entitiesOf(f)})
		return b
	}
}

// eventsOf lists the events of f after seq (chat only when public).
func eventsOf(f *live.Frame, after uint64, publicChat bool) []apiEvent {
	out := []apiEvent{}
	for _, e := range f.Events {
		if e.Seq <= after || (!publicChat && e.Kind == live.EventChat) {
			continue
		}
		out = append(out, apiEvent{Seq: e.Seq, Tick: e.Tick, Kind: live.EventNames[e.Kind], Client: e.Client, Name: e.Name,
			Victim: e.Victim, VictimName: e.VictimName, Weapon: e.Weapon, Text: e.Text})
	}
	return out
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers an error as JSON.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"version": APIVersion, "error": msg})
}

func (h *Handler) apiGames(w http.ResponseWriter, r *http.Request) {
	games := make([]apiGame, 0, len(h.games))
	for _, g := range h.games {
		games = append(games, gameOf(g.Port, h.frame(r.Context(), g)))
	}
	writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "games": games})
}

func (h *Handler) apiGame(w http.ResponseWriter, r *http.Request) {
	g := h.game(w, r)
	if g == nil {
		return
	}
	f := h.frame(r.Context(), g)
	writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "game": gameOf(g.Port, f),
		"events": eventsOf(f, 0, h.opt.PublicChat)})
}

func (h *Handler) apiMap(w http.ResponseWriter, r *http.Request) {
	g := h.game(w, r)
	if g == nil {
		return
	}
	f := h.frame(r.Context(), g)
	if f.Map == nil {
		writeError(w, http.StatusServiceUnavailable, "no frame yet")
		return
	}
	g.mu.Lock()
	if g.mapLayer != f.Map {
		b, _ := json.Marshal(map[string]any{"version": APIVersion, "gen": f.Map.Gen, "name": f.Map.Name,
			"width": f.Map.Width, "height": f.Map.Height, "tiles": f.Map.Tiles})
		g.mapLayer, g.mapJSON = f.Map, b
	}
	b := g.mapJSON
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// apiEvents is the live stream (Server-Sent Events): "frame" messages
// (apiFrame) at the loop's frame rate, skipping frames the viewer is too
// slow for, and "feed" messages (new apiEvents) when lines were added.
func (h *Handler) apiEvents(w http.ResponseWriter, r *http.Request) {
	g := h.game(w, r)
	if g == nil {
		return
	}
	if h.streams.Add(1) > MaxStreams {
		h.streams.Add(-1)
		writeError(w, http.StatusServiceUnavailable, "too many live viewers")
		return
	}
	defer h.streams.Add(-1)
	hub := g.Server.Live()
	detach := hub.Attach()
	defer detach()
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	enc := frameJSON(g.Port)
	end := time.NewTimer(StreamMaxAge)
	defer end.Stop()
	var sent uint64
	f := hub.Latest()
	for {
		if f.Seq != 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(StreamWriteTimeout))
			if _, err := writeSSE(w, "frame", f.Encoded(enc)); err != nil {
				return
			}
			if n := len(f.Events); n > 0 && f.Events[n-1].Seq > sent {
				ev := eventsOf(f, sent, h.opt.PublicChat)
				sent = f.Events[n-1].Seq
				if len(ev) > 0 {
					b, _ := json.Marshal(ev)
					if _, err := writeSSE(w, "feed", b); err != nil {
						return
					}
				}
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
		select {
		case <-f.Next():
			f = hub.Latest()
		case <-r.Context().Done():
			return
		case <-end.C:
			return
		}
	}
}

// writeSSE writes one Server-Sent Event (data without newlines: JSON).
func writeSSE(w http.ResponseWriter, event string, data []byte) (int, error) {
	n, err := w.Write([]byte("event: " + event + "\ndata: "))
	if err != nil {
		return n, err
	}
	m, err := w.Write(data)
	if err != nil {
		return n + m, err
	}
	k, err := w.Write([]byte("\n\n"))
	return n + m + k, err
}

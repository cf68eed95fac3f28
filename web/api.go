package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"twserver/internal/httpserve"
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
	Bot      bool   `json:"bot"`
}

// apiGame is one game's state.
type apiGame struct {
	Port       int         `json:"port"`
	Name       string      `json:"name"`
	Map        string      `json:"map"`
	GameType   string      `json:"game_type"`
	State      string      `json:"state"`
	Tick       int32       `json:"tick,omitempty"`
	ScoreLimit int         `json:"score_limit"`
	TimeLimit  int         `json:"time_limit"`
	Teams      bool        `json:"teams"`
	TeamScore  [2]int      `json:"team_score"`
	MaxClients int         `json:"max_clients"`
	Clients    []apiClient `json:"clients"`
}

// apiEvent is one line of the chat and kill feed.
type apiEvent struct {
	Seq        uint64 `json:"seq"`
	Tick       int32  `json:"tick"`
	Kind       string `json:"kind"`
	Client     int    `json:"client"`
	Name       string `json:"name"`
	Victim     *int   `json:"victim,omitempty"` // a kill's (0 is a client id): nil for other kinds
	VictimName string `json:"victim_name,omitempty"`
	Weapon     *int   `json:"weapon,omitempty"` // a kill's (0 is the hammer)
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
			Score: p.Score, IsPlayer: p.IsPlayer, Team: p.Team, Ping: p.Ping, Client: p.Client, Bot: p.Bot})
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

// The "frame" message of the live stream: the positions on the minimap in
// world units (32 per tile), as arrays to keep it small:
//
//	{"version":1,"seq":S,"tick":T,"map_gen":G,"tees":[[id,x,y],...],
//	 "flags":[[x,y,team],...],"projectiles":[[x,y,type],...],
//	 "pickups":[[x,y,type],...],"lasers":[[x,y,from_x,from_y],...]}
//
// It is written by hand (appendFrame), once a frame for all viewers,
// without reflection or allocation; the tests hold it to encoding/json's
// output of the same fields.

// frameList is one array of the frame message: the items of one type,
// each as the listed words of its data (-1: the item's id), items with
// fewer than need words left out.
type frameList struct {
	key   string
	typ   uint16
	need  int
	words []int
}

// frameLists are the frame message's arrays in their order.
var frameLists = [...]frameList{
	{`,"tees":[`, world.ObjCharacter, 3, []int{-1, 1, 2}},
	{`,"flags":[`, world.ObjFlag, 3, []int{0, 1, 2}},
	{`,"projectiles":[`, world.ObjProjectile, 5, []int{0, 1, 4}},
	{`,"pickups":[`, world.ObjPickup, 3, []int{0, 1, 2}},
	{`,"lasers":[`, world.ObjLaser, 4, []int{0, 1, 2, 3}},
}

// appendFrame appends the "frame" message's JSON of frame f to b.
func appendFrame(b []byte, f *live.Frame) []byte {
	var gen uint32
	if f.Map != nil {
		gen = f.Map.Gen
	}
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, APIVersion, 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, f.Seq, 10)
	b = append(b, `,"tick":`...)
	b = strconv.AppendInt(b, int64(f.Tick), 10)
	b = append(b, `,"map_gen":`...)
	b = strconv.AppendUint(b, uint64(gen), 10)
	for _, l := range &frameLists {
		b = append(b, l.key...)
		first := true
		for _, it := range f.Items {
			d := f.Data(it)
			if it.Type != l.typ || len(d) < l.need {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			for k, w := range l.words {
				if k == 0 {
					b = append(b, '[')
				} else {
					b = append(b, ',')
				}
				v := int64(it.ID)
				if w >= 0 {
					v = int64(d[w])
				}
				b = strconv.AppendInt(b, v, 10)
			}
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// streamMsgs are a frame's "frame" message of the live stream, encoded
// once and shared by every viewer as the bytes each one is sent.
type streamMsgs struct {
	frame []byte // the "frame" message, framed (event: frame, data, blank line)
	seq   uint64 // the frame's Seq
	last  uint64 // Seq of the frame's newest event (0: none)
}

// encodeFrame is the live stream's encoding of a frame (Frame.Encoded).
func encodeFrame(f *live.Frame) any {
	b := make([]byte, 0, 64+16*len(f.Items)) // the head, and about an item's array
	b = appendFrame(beginSSE(b, "frame"), f)
	m := &streamMsgs{frame: endSSE(b), seq: f.Seq}
	if n := len(f.Events); n > 0 {
		m.last = f.Events[n-1].Seq
	}
	return m
}

// gameMsg is the live stream's "game" message of frame f of game port
// (apiGame without the tick: it changes only with the game).
func gameMsg(port int, f *live.Frame) []byte {
	g := gameOf(port, f)
	g.Tick = 0
	gb, _ := json.Marshal(g)
	return appendSSE(nil, "game", gb)
}

// eventsOf lists the events of f after seq (chat only when public).
func eventsOf(f *live.Frame, after uint64, publicChat bool) []apiEvent {
	out := []apiEvent{}
	for _, e := range f.Events {
		if e.Seq <= after || (!publicChat && e.Kind == live.EventChat) {
			continue
		}
		ev := apiEvent{Seq: e.Seq, Tick: e.Tick, Kind: live.EventNames[e.Kind], Client: e.Client, Name: e.Name,
			VictimName: e.VictimName, Text: e.Text}
		if e.Kind == live.EventKill {
			ev.Victim, ev.Weapon = &e.Victim, &e.Weapon // e is this iteration's copy
		}
		out = append(out, ev)
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

// apiGames answers every game: it wakes them all at once, then waits for
// their frames within one FrameWait.
func (h *Handler) apiGames(w http.ResponseWriter, r *http.Request) {
	games := make([]apiGame, 0, len(h.games))
	now := h.opt.Now()
	for _, g := range h.games {
		g.Server.Live().Demand(now)
	}
	deadline := time.Now().Add(FrameWait)
	for _, g := range h.games {
		f := h.frameBy(r.Context(), g, deadline)
		games = append(games, gameOf(g.Port, f))
		f.Release()
	}
	writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "games": games})
}

func (h *Handler) apiGame(w http.ResponseWriter, r *http.Request) {
	g := h.game(w, r)
	if g == nil {
		return
	}
	f := h.frame(r.Context(), g)
	game, events := gameOf(g.Port, f), eventsOf(f, 0, h.opt.PublicChat)
	f.Release()
	writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "game": game, "events": events})
}

func (h *Handler) apiMap(w http.ResponseWriter, r *http.Request) {
	g := h.game(w, r)
	if g == nil {
		return
	}
	f := h.frame(r.Context(), g)
	layer := f.Map // immutable: it outlives the frame
	f.Release()
	if layer == nil {
		writeError(w, http.StatusServiceUnavailable, "no frame yet")
		return
	}
	g.mu.Lock()
	if g.mapLayer != layer {
		b, _ := json.Marshal(map[string]any{"version": APIVersion, "gen": layer.Gen, "name": layer.Name,
			"width": layer.Width, "height": layer.Height, "tiles": layer.Tiles})
		g.mapLayer, g.mapJSON = layer, b
	}
	b := g.mapJSON
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// apiEvents is the live stream (Server-Sent Events): "frame" messages
// (apiFrame) at the loop's frame rate, skipping frames the viewer is too
// slow for, "game" messages (apiGame) when the game or its players
// changed, and "feed" messages (new apiEvents) when lines were added.
//
// The handler takes the connection over (HTTP/1.1; the body ends when the
// connection closes) and hands it to the game's streamer, which writes
// the frames' shared encoding (streamMsgs) to every viewer within the
// game's write budget (StreamWritesPerSecond: with many viewers several
// frames a write); the handler only waits for the stream's end.
func (h *Handler) apiEvents(w http.ResponseWriter, r *http.Request) {
	g := h.game(w, r)
	if g == nil {
		return
	}
	key := httpserve.AddrKey(h.clientAddr(r))
	if h.streams.Acquire(key, false) != httpserve.Admitted {
		overBound(w, "too many live viewers")
		return
	}
	defer h.streams.Release(key)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		writeError(w, http.StatusHTTPVersionNotSupported, "the live stream needs HTTP/1.1")
		return
	}
	if err := streamHead(conn, w.Header()); err != nil {
		_ = conn.Close()
		return
	}
	v := newViewer(conn, time.Now())
	g.stream.join(v)
	select {
	case <-v.done:
	case <-r.Context().Done(): // the server shuts down
		v.gone.Store(true)
		g.stream.poke()
		<-v.done
	}
}

// appendSSE appends one Server-Sent Event (data without newlines: JSON).
func appendSSE(b []byte, event string, data []byte) []byte {
	return endSSE(append(beginSSE(b, event), data...))
}

// beginSSE appends the head of an event, up to its data: the data is
// appended next (without newlines), then endSSE ends the event.
func beginSSE(b []byte, event string) []byte {
	b = append(b, "event: "...)
	b = append(b, event...)
	return append(b, "\ndata: "...)
}

// endSSE ends the event whose data b ends with.
func endSSE(b []byte) []byte { return append(b, "\n\n"...) }

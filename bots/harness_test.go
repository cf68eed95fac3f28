package bots

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"twserver/world"
	"twserver/world/twmap"
)

// game is the tests' stand-in for the server: a world and its bots, with
// each bot's input applied the way the server applies a client's
// (DirectInput on arrival, SetInput before the next tick).
type game struct {
	w       *world.World
	bots    []*Bot
	pending []world.Input
	// stillSince is per bot the tick since which its character has not moved.
	stillSince []int32
	lastPos    [][2]int32
	maxStill   int32
	kills      []int
	deaths     []int
	caps       [2]int
	grabs      int
	byWeapon   [world.NumWeapons + 3]int
	onKill     func(killer, victim int) // if set, called for every kill
}

func loadMap(tb testing.TB, path string) *twmap.Map {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	name := filepath.Base(path)
	name = name[:len(name)-len(filepath.Ext(name))]
	m, err := twmap.Load(name, data)
	if errors.Is(err, twmap.ErrStandardMap) {
		// a packaged variant of an official map (Debian's ctf8): the server
		// would serve it under another name, so load it under one
		m, err = twmap.Load(name+"_pkg", data)
	}
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return m
}

// newGame creates a world with one bot per entry of skills; teams (if not
// nil) gives each bot's team.
func newGame(tb testing.TB, nav *Nav, m *twmap.Map, cfg world.Config, seed uint64, skills []Skill, teams []int) *game {
	tb.Helper()
	w, err := world.New(m, cfg, seed)
	if err != nil {
		tb.Fatal(err)
	}
	g := &game{w: w}
	for i, sk := range skills {
		info := world.PlayerInfo{Bot: true, Name: "bot"}
		if err := w.ConnectPlayer(i, info); err != nil {
			tb.Fatal(err)
		}
		if err := w.EnterPlayer(i, info); err != nil {
			tb.Fatal(err)
		}
		if teams != nil && w.Team(i) != teams[i] {
			w.SetTeam(i, teams[i])
		}
		g.bots = append(g.bots, New(nav, i, sk, seed*31+uint64(i)))
	}
	g.pending = make([]world.Input, len(skills))
	g.stillSince = make([]int32, len(skills))
	g.lastPos = make([][2]int32, len(skills))
	g.kills = make([]int, len(skills))
	g.deaths = make([]int, len(skills))
	return g
}

// step runs one tick and lets every bot think.
func (g *game) step() {
	for i, b := range g.bots {
		g.w.SetInput(b.cid, g.pending[i])
	}
	g.w.Tick()
	g.w.DrainEvents(g.onEvent)
	paused := g.w.Paused()
	for i, b := range g.bots {
		in := b.Think(g.w)
		g.w.DirectInput(b.cid, in)
		g.pending[i] = in
		g.watchStill(i, paused)
	}
	g.w.PostSnap()
}

func (g *game) onEvent(e world.Event) {
	switch {
	case e.Kind == world.EvKillMsg:
		killer, victim := int(e.Args[0]), int(e.Args[1])
		if wp := int(e.Args[2]) + 3; wp >= 0 && wp < len(g.byWeapon) {
			g.byWeapon[wp]++
		}
		if victim >= 0 && victim < len(g.deaths) {
			g.deaths[victim]++
		}
		if killer >= 0 && killer < len(g.kills) && killer != victim {
			g.kills[killer]++
		}
		if g.onKill != nil {
			g.onKill(killer, victim)
		}
	case e.Kind == world.EvGameMsg && e.Args[0] == world.GameMsgCTFGrab:
		g.grabs++
	case e.Kind == world.EvGameMsg && e.Args[0] == world.GameMsgCTFCapture:
		if t := e.Args[1]; t == 0 || t == 1 {
			g.caps[t]++
		}
	}
}

// watchStill tracks how long each living bot's character stays in place.
func (g *game) watchStill(i int, paused bool) {
	now := g.w.CurrentTick()
	pos, ok := g.w.CharacterPos(i)
	if !ok || paused {
		g.stillSince[i] = now
		return
	}
	p := [2]int32{int32(pos.X), int32(pos.Y)}
	if p != g.lastPos[i] {
		g.lastPos[i] = p
		g.stillSince[i] = now
		return
	}
	if d := now - g.stillSince[i]; d > g.maxStill {
		g.maxStill = d
	}
}

func (g *game) run(ticks int) {
	for t := 0; t < ticks; t++ {
		g.step()
	}
}

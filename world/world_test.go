package world

import (
	"errors"
	"testing"

	"twserver/world/twmap"
)

func TestNewWithDefaultMap(t *testing.T) {
	for _, gt := range []GameType{GameDM, GameTDM, GameCTF} {
		cfg := DefaultConfig()
		cfg.GameType = gt
		w, err := New(twmap.Default(), cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.spawns[0])+len(w.spawns[1])+len(w.spawns[2]) == 0 {
			t.Fatal("default map without spawn points")
		}
		for i := 0; i < 4; i++ {
			if err := w.AddPlayer(i, PlayerInfo{}); err != nil {
				t.Fatal(err)
			}
		}
		tickN(w, 100)
		for i := 0; i < 4; i++ {
			if !w.Alive(i) {
				t.Fatalf("%s: player %d did not spawn on the default map", w.GameTypeName(), i)
			}
		}
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(nil, DefaultConfig(), 0); !errors.Is(err, ErrNoMap) {
		t.Fatalf("nil map: %v", err)
	}
	if _, err := New(&twmap.Map{Width: 3, Height: 3, Game: make([]byte, 8)}, DefaultConfig(), 0); !errors.Is(err, ErrBadMapSize) {
		t.Fatalf("short game layer: %v", err)
	}
	w := newTestWorld(t, DefaultConfig(), flatRows...)
	if err := w.AddPlayer(MaxClients, PlayerInfo{}); !errors.Is(err, ErrBadClient) {
		t.Fatalf("cid 64: %v", err)
	}
	w.AddPlayer(3, PlayerInfo{})
	if err := w.AddPlayer(3, PlayerInfo{}); !errors.Is(err, ErrSlotInUse) {
		t.Fatalf("double add: %v", err)
	}
	if err := w.Snap(4, &fakeBuilder{}); !errors.Is(err, ErrNoPlayer) {
		t.Fatalf("snap for absent viewer: %v", err)
	}
	// calls for absent players are ignored
	w.RemovePlayer(9)
	w.SetInput(9, Input{})
	w.DirectInput(9, Input{})
	w.Kill(9)
	if w.SetTeam(9, TeamRed) {
		t.Fatal("team change for an absent player")
	}
}

func TestPlayerSlotsFull(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PlayerSlots = 2
	w := newTestWorld(t, cfg, flatRows...)
	for i := 0; i < 3; i++ {
		w.AddPlayer(i, PlayerInfo{})
	}
	if w.Team(2) != TeamSpectators {
		t.Fatal("third player should spectate with 2 player slots")
	}
	tickN(w, 4*tickSpeed)
	if w.SetTeam(2, TeamRed) {
		t.Fatal("joined a full game")
	}
	w.RemovePlayer(0)
	tickN(w, 4*tickSpeed)
	if !w.SetTeam(2, TeamRed) {
		t.Fatal("could not join after a slot freed")
	}
}

func TestIDPoolReuse(t *testing.T) {
	var p idPool
	p.init()
	for want := 0; want < 4; want++ {
		if got := p.alloc(); got != want {
			t.Fatalf("fresh id %d, want %d", got, want)
		}
	}
	// freed ids come back at the next allocation, the most recently freed first
	p.free(1)
	p.free(3)
	if a, b, c := p.alloc(), p.alloc(), p.alloc(); a != 3 || b != 1 || c != 4 {
		t.Fatalf("reuse order %d %d %d, want 3 1 4", a, b, c)
	}
	if p.inUse != 5 {
		t.Fatalf("in use %d", p.inUse)
	}
}

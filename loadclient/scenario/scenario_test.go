package scenario

import (
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"twserver/loadclient"
)

const full = `name = "everything"
description = "one of each phase"
seed = 11
pattern = "walk"
fresh_maps = true
enter_timeout = "1m"
sources = 8

[network]
delay = "20ms"

[[phase]]
kind = "ramp"
clients = 4
duration = "2s"

[[phase]]
name = "loss P1"
kind = "loss"
duration = "10s"
loss = "5%"
delay = "40ms"
jitter = "20ms"
up = "loss=0%"

[[phase]]
kind = "blackout"
duration = "2s"

[[phase]]
kind = "flood"
duration = "5s"
rate = 1000
sources = 10
kinds = "token=1,garbage=1"

[[phase]]
kind = "hold"
duration = "5s"
connections = 200
stage = "map"
keepalive = true
lasts = "6s"

[[phase]]
kind = "leave"
clients = 3
duration = "1s"

[[phase]]
kind = "blackout"
duration = "1s"

[[phase]]
kind = "steady"
duration = "3s"
`

// TestParseFull: every kind of phase and every top-level key, and the plan
// made of them.
func TestParseFull(t *testing.T) {
	s, err := Parse([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "everything" || s.Seed != 11 || s.Pattern != loadclient.PatternWalk || !s.FreshMaps ||
		s.EnterTimeout != time.Minute || s.Sources != 8 || len(s.Phases) != 8 || s.Total() != 29*time.Second {
		t.Fatalf("%+v", s)
	}
	if p := s.Phases[1]; p.Label() != "loss P1" || p.Line != 17 || p.Up.Loss != 0 || p.Down.Loss != 0.05 || p.Up.Delay != 40*time.Millisecond {
		t.Fatalf("loss phase %+v", p)
	}
	pl := s.Plan(netip.MustParseAddrPort("127.0.0.1:8303"))
	r := pl.Run
	if r.Clients != 4 || r.Duration != 29*time.Second || r.Sources != 8 || r.Seed != 11 || !r.FreshMaps {
		t.Fatalf("run %+v", r)
	}
	wantStart := []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond}
	wantLeave := []time.Duration{0, 24 * time.Second, 24 * time.Second, 24 * time.Second}
	if !reflect.DeepEqual(r.StartAt, wantStart) || !reflect.DeepEqual(r.LeaveAt, wantLeave) {
		t.Fatalf("start %v leave %v, want %v %v", r.StartAt, r.LeaveAt, wantStart, wantLeave)
	}
	n := r.Netem
	if n == nil || n.BlackoutAt != 12*time.Second || n.Blackout != 2*time.Second || len(n.Phases) != 2 ||
		n.Phases[0].From != 2*time.Second || n.Phases[0].To != 12*time.Second || n.Phases[0].Down.Loss != 0.05 ||
		!n.Phases[1].Blackout || n.Phases[1].From != 25*time.Second || n.Phases[1].To != 26*time.Second {
		t.Fatalf("netem %+v", n)
	}
	checkPlan(t, pl)
	if len(pl.Floods) != 1 || pl.Floods[0].At != 14*time.Second || pl.Floods[0].Config.Rate != 1000 || pl.Floods[0].Config.Sources != 10 {
		t.Fatalf("floods %+v", pl.Floods)
	}
	if n.Up.Delay != 20*time.Millisecond || n.Down.Delay != 20*time.Millisecond || n.Up.Loss != 0 {
		t.Fatalf("[network]: %+v", n)
	}
	if len(pl.Holds) != 1 || pl.Holds[0].At != 19*time.Second || pl.Holds[0].Config.RampUp+pl.Holds[0].Config.Duration != 6*time.Second {
		t.Fatalf("holds %+v", pl.Holds)
	}
}

// checkPlan fails t when a run of the plan does not pass loadclient's
// own checks.
func checkPlan(t *testing.T, pl Plan) {
	t.Helper()
	if pl.Run.Sources < 0 {
		pl.Run.Sources = 0
	}
	if err := pl.Run.Validate(); err != nil {
		t.Fatalf("the plan's run: %v", err)
	}
	for _, f := range pl.Floods {
		if err := f.Config.Validate(); err != nil {
			t.Fatalf("flood: %v", err)
		}
	}
	for _, h := range pl.Holds {
		if err := h.Config.Validate(); err != nil {
			t.Fatalf("hold: %v", err)
		}
	}
}

// TestParseErrors: every refusal names the line and the key or phase.
func TestParseErrors(t *testing.T) {
	ramp := "[[phase]]\nkind = \"ramp\"\nclients = 4\nduration = \"2s\"\n"
	for _, tc := range []struct {
		name, file, want string
	}{
		{"empty", "", "no [[phase]]"},
		{"syntax", "name = \n", "line 1: "},
		{"unknown top key", "name = \"x\"\nseeed = 3\n" + ramp, `line 2: unknown key "seeed"`},
		{"top type", "seed = \"3\"\n" + ramp, "line 1: seed: want an integer, not a string"},
		{"pattern", "pattern = \"dance\"\n" + ramp, "line 1: pattern:"},
		{"pace", "pace = \"often\"\n" + ramp, "line 1: pace:"},
		{"proto", "proto = \"0.8\"\n" + ramp, `line 1: proto: "0.8" is not`},
		{"sources", "sources = 300\n" + ramp, "line 1: sources: 300 is outside -1..250"},
		{"phase not table", "phase = 3\n", "line 1: phase: want [[phase]] tables"},
		{"no kind", "[[phase]]\nduration = \"1s\"\n", "line 1: phase 1: no kind"},
		{"bad kind", "[[phase]]\nkind = \"party\"\n", `line 2: phase 1: kind "party" is not`},
		{"key of another kind", ramp + "[[phase]]\nkind = \"steady\"\nduration = \"1s\"\nrate = 5\n",
			`line 8: phase 2 (steady): unknown key "rate" (a steady phase takes kind, name, duration)`},
		{"no duration", "[[phase]]\nkind = \"ramp\"\nclients = 2\n", "line 1: phase 1 (ramp): no duration"},
		{"bad duration", "[[phase]]\nkind = \"ramp\"\nclients = 2\nduration = \"soon\"\n", `line 4: phase 1 (ramp): duration: "soon" is not a duration`},
		{"zero duration", "[[phase]]\nkind = \"ramp\"\nclients = 2\nduration = \"0s\"\n", "line 4: phase 1 (ramp): duration: 0s is outside"},
		{"ramp clients", "[[phase]]\nkind = \"ramp\"\nclients = 65\nduration = \"1s\"\n", "line 3: phase 1 (ramp): clients: 65 is outside 1..64"},
		{"too many clients", strings.Repeat("[[phase]]\nkind = \"ramp\"\nclients = 40\nduration = \"1s\"\n", 2), "line 5: phase 2 (ramp): the ramps start 80 clients"},
		{"no ramp", "[[phase]]\nkind = \"steady\"\nduration = \"1s\"\n", "no ramp phase"},
		{"leave too many", ramp + "[[phase]]\nkind = \"leave\"\nclients = 5\nduration = \"1s\"\n", "line 5: phase 2 (leave): 5 clients are to leave but only 4 are in"},
		{"long blackout", ramp + "[[phase]]\nkind = \"blackout\"\nduration = \"2m\"\n", "line 7: phase 2 (blackout): a blackout lasts at most 1m0s"},
		{"loss nothing", ramp + "[[phase]]\nkind = \"loss\"\nduration = \"2s\"\n", "line 5: phase 2 (loss): impairs nothing"},
		{"loss share", ramp + "[[phase]]\nkind = \"loss\"\nduration = \"2s\"\nloss = \"150%\"\n", "line 8: phase 2 (loss): loss:"},
		{"loss delay", ramp + "[[phase]]\nkind = \"loss\"\nduration = \"2s\"\ndelay = \"3s\"\n", "line 8: phase 2 (loss): delay: 3s is outside"},
		{"loss up", ramp + "[[phase]]\nkind = \"loss\"\nduration = \"2s\"\nup = \"lose=3%\"\n", "line 8: phase 2 (loss): up:"},
		{"flood rate", ramp + "[[phase]]\nkind = \"flood\"\nduration = \"2s\"\nrate = 2000000\n", "line 8: phase 2 (flood): rate: 2000000 is outside"},
		{"flood no rate", ramp + "[[phase]]\nkind = \"flood\"\nduration = \"2s\"\n", "line 5: phase 2 (flood): no rate"},
		{"flood long", ramp + "[[phase]]\nkind = \"flood\"\nduration = \"11m\"\nrate = 5\n", "line 7: phase 2 (flood): a flood lasts at most"},
		{"flood kinds", ramp + "[[phase]]\nkind = \"flood\"\nduration = \"2s\"\nrate = 5\nkinds = \"nukes=1\"\n", "line 9: phase 2 (flood): kinds:"},
		{"hold stage", ramp + "[[phase]]\nkind = \"hold\"\nduration = \"2s\"\nconnections = 5\nstage = \"lobby\"\n", `line 9: phase 2 (hold): stage: "lobby" is not`},
		{"hold short", ramp + "[[phase]]\nkind = \"hold\"\nduration = \"1s\"\nconnections = 1000\nstage = \"map\"\n", "line 7: phase 2 (hold): a hold of 1000 connections lasts more than their ramp-up 2s"},
		{"hold keepalive", ramp + "[[phase]]\nkind = \"hold\"\nduration = \"3s\"\nconnections = 5\nstage = \"map\"\nkeepalive = 1\n", "line 10: phase 2 (hold): keepalive: want true or false"},
		{"network key", "[network]\nlos = \"5%\"\n" + ramp, `line 2: [network]: unknown key "los"`},
		{"network type", "network = 5\n" + ramp, "line 1: network: want a [network] table"},
		{"network bad", "[network]\ndelay = \"5s\"\n" + ramp, "line 2: [network]: delay: 5s is outside"},
		{"hold lasts short", ramp + "[[phase]]\nkind = \"hold\"\nduration = \"3s\"\nconnections = 5\nstage = \"map\"\nlasts = \"1s\"\n", "line 10: phase 2 (hold): lasts: 1s is shorter than the phase"},
		{"hold lasts past end", ramp + "[[phase]]\nkind = \"hold\"\nduration = \"3s\"\nconnections = 5\nstage = \"map\"\nlasts = \"9s\"\n", "line 5: phase 2 (hold): lasts 9s, past the end"},
		{"too long", ramp + "[[phase]]\nkind = \"steady\"\nduration = \"2h\"\n", "the phases last 2h0m2s, more than 2h0m0s"},
		{"too many phases", ramp + strings.Repeat("[[phase]]\nkind = \"steady\"\nduration = \"1s\"\n", 32), "line 98: more than 32 phases"},
		{"too big", "# " + strings.Repeat("x", MaxFileSize), "larger than"},
	} {
		_, err := Parse([]byte(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// FuzzParse: no input panics, and a scenario that parses makes a plan
// whose runs pass loadclient's own checks.
func FuzzParse(f *testing.F) {
	f.Add([]byte(full))
	f.Add([]byte("[[phase]]\nkind = \"ramp\"\nclients = 4\nduration = \"2s\"\n[[phase]]\nkind = \"leave\"\nclients = 4\nduration = \"1s\"\n"))
	f.Add([]byte("phase = [{kind = \"ramp\", clients = 1, duration = \"1s\"}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		checkPlan(t, s.Plan(netip.MustParseAddrPort("127.0.0.1:8303")))
	})
}

// TestShippedScenarios: every scenario file in scripts/scenarios parses
// and makes a plan loadclient accepts.
func TestShippedScenarios(t *testing.T) {
	files, err := filepath.Glob("../../scripts/scenarios/*.toml")
	if err != nil || len(files) < 10 {
		t.Fatalf("%d scenario files (%v)", len(files), err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		t.Logf("%s: %q, %d phases, %v, %d clients", filepath.Base(f), s.Name, len(s.Phases), s.Total(), s.Clients())
		checkPlan(t, s.Plan(netip.MustParseAddrPort("127.0.0.1:8303")))
	}
}

// TestParsePace: the file's pace reaches the run; without one it is the
// real clients' pace.
func TestParsePace(t *testing.T) {
	ramp := "[[phase]]\nkind = \"ramp\"\nclients = 4\nduration = \"2s\"\n"
	for _, tc := range []struct {
		file string
		want loadclient.Pace
	}{{ramp, loadclient.PaceReal}, {"pace = \"tick\"\n" + ramp, loadclient.PaceTick}, {"pace = \"real\"\n" + ramp, loadclient.PaceReal}} {
		s, err := Parse([]byte(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Plan(netip.MustParseAddrPort("127.0.0.1:8303")).Run.Pace; s.Pace != tc.want || got != tc.want {
			t.Errorf("%q: pace %v, run's %v, want %v", tc.file, s.Pace, got, tc.want)
		}
	}
}

package worldcmd

import (
	"os"
	"strings"
	"testing"

	"twserver/console"
	"twserver/world"
	"twserver/world/tuning"
	"twserver/world/twmap"
)

// run runs one console line against h and returns the output lines.
func run(t *testing.T, h map[string]console.Handler, out *[]string, line string) []string {
	t.Helper()
	*out = (*out)[:0]
	f := strings.Fields(line)
	if err := h[f[0]](console.Caller{Kind: console.Stdin}, console.Args(f[1:])); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return *out
}

// TestHandlers: the commands act on the world the getter returns when they
// run (a map change replaces it), and print what the reference prints.
func TestHandlers(t *testing.T) {
	data, err := os.ReadFile("../world/testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	m, err := twmap.Load("dm1", data)
	if err != nil {
		t.Fatal(err)
	}
	newWorld := func() *world.World {
		w, err := world.New(m, world.DefaultConfig(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddPlayer(0, world.PlayerInfo{Name: "a"}); err != nil {
			t.Fatal(err)
		}
		return w
	}
	cur := newWorld()
	var out []string
	restarts := -1
	h := Handlers(func() *world.World { return cur }, func(s string) { out = append(out, s) }, func(w int) { restarts = w })
	if got := run(t, h, &out, "tunes"); len(got) != len(tuning.Names) || !strings.HasPrefix(got[0], tuning.Names[0]+" ") {
		t.Errorf("tunes: %q", got)
	}
	if got := run(t, h, &out, "set_team 0 -1"); len(got) != 1 || got[0] != "moved client 0 to team -1" || cur.Team(0) != world.TeamSpectators {
		t.Errorf("set_team: %q, team %d", got, cur.Team(0))
	}
	cur = newWorld() // a map change: the next command acts on the new world
	if run(t, h, &out, "set_team 0 -1"); cur.Team(0) != world.TeamSpectators {
		t.Errorf("set_team after the world changed: team %d", cur.Team(0))
	}
	run(t, h, &out, "restart 3")
	if restarts != 3 {
		t.Errorf("restart told %d, want 3", restarts)
	}
}

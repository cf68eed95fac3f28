package server

import (
	"testing"

	"twserver/dialect6"
	"twserver/gamemsg"
	"twserver/netproto"
)

// fullPlayers6 is a copy of s's 0.6 translation after a full refresh of
// every slot (what setPlayers6 did each round before it was incremental).
func fullPlayers6(s *Server) *dialect6.Game {
	g := *s.trans6
	for _, c := range s.clients {
		in := c.state == stateIngame
		var p dialect6.Player
		if in {
			p = dialect6.Player{Name: c.name, Clan: c.clan, Country: c.country, Skin: c.skin, Team: int32(s.world.Team(c.id))}
		}
		g.SetPlayer(c.id, p, in)
	}
	return &g
}

// TestSetPlayers6Incremental: after each kind of change (a 0.7 skin change,
// a 0.6 Cl_ChangeInfo, a team change, a drop, an entry changed behind the
// server's back) the incremental setPlayers6 leaves the translation's
// players exactly as a full refresh of every slot would.
func TestSetPlayers6Incremental(t *testing.T) {
	s := poolTestServer(t, &discardConn{}, 12, nil)
	mix06(s, 12)
	var skin6 netproto.Packer // DDNet client 1 changes its 0.6 skin
	for _, str := range []string{"p1", ""} {
		skin6.AddString(str)
	}
	skin6.AddInt(-1)
	skin6.AddString("bluekitty")
	skin6.AddInt(1)
	skin6.AddInt(0x10ff80)
	skin6.AddInt(0x20ff80)
	other := gamemsg.DefaultSkin
	other.PartNames[0] = "kitty"
	for _, tc := range []struct {
		name   string
		change func()
	}{
		{"steady", func() {}},
		{"0.7 skin change", func() { s.handleGameMessage(s.clients[0], &gamemsg.ClSkinChange{Skin: other}) }},
		{"0.6 change info", func() { s.onGameMessage6(s.clients[1], dialect6.MsgClChangeInfo, skin6.Bytes()) }},
		{"team change", func() { s.handleGameMessage(s.clients[3], &gamemsg.ClSetTeam{Team: -1}) }},
		{"drop", func() { s.dropClient(s.clients[4], "bye") }},
		{"entry changed elsewhere", func() { s.trans6.Infos.SetTeam(5, 1) }},
		{"entry removed elsewhere", func() { s.trans6.Infos.Remove(6) }},
	} {
		tc.change()
		s.setPlayers6()
		full := fullPlayers6(s)
		for cid := range dialect6.MaxClients {
			p, in := s.trans6.Infos.Player(cid)
			fp, fin := full.Infos.Player(cid)
			if p != fp || in != fin {
				t.Fatalf("%s: slot %d is %+v (in %v), a full refresh gives %+v (in %v)", tc.name, cid, p, in, fp, fin)
			}
		}
		stepMoving(s, 12)
		stepMoving(s, 12)
	}
	if p, _ := s.trans6.Infos.Player(1); !p.HasSkin6 || p.Skin6.Name != "bluekitty" {
		t.Errorf("the 0.6 client's own skin did not arrive: %+v", p)
	}
}

// BenchmarkSetPlayers6 measures setPlayers6, run before every round of
// snapshots, in a 63-client game with 0.6 clients (mix06) where nothing
// changed since the last round: the steady state of every snapshot tick.
func BenchmarkSetPlayers6(b *testing.B) {
	s := poolTestServer(b, &discardConn{}, 63, nil)
	mix06(s, 63)
	for range 10 {
		stepMoving(s, 63)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.setPlayers6()
	}
}

package vote

import (
	"net/netip"
	"testing"
	"time"

	"twserver/gamemsg"
)

type slots []Slot

func (s slots) Len() int        { return len(s) }
func (s slots) Slot(i int) Slot { return s[i] }

func TestCountOneVotePerAddress(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	s := slots{
		{Ingame: true, Addr: a},
		{Ingame: true, Addr: a}, // same address, voted first: counts
		{Ingame: true, Addr: b},
		{Ingame: true, Spectator: true, Addr: netip.MustParseAddr("10.0.0.3")},
		{Ingame: false, Addr: netip.MustParseAddr("10.0.0.4")},
	}
	var g Game
	g.Start(State{Active: true, Caller: -1, Target: -1}, 0)
	for _, cv := range [][2]int{{1, -1}, {0, 1}, {2, 1}, {3, 1}, {4, 1}} {
		if !g.Cast(cv[0], cv[1]) {
			t.Fatalf("Cast(%d, %d) not counted", cv[0], cv[1])
		}
	}
	if yes, no, total := g.Count(s); yes != 1 || no != 1 || total != 2 {
		t.Fatalf("Count = %d yes %d no %d total, want 1 1 2", yes, no, total)
	}
}

// TestGame: a player's call, the caller's yes, one vote per client, the
// pass that lets the caller call again at once, and the aborts of a vote
// whose target left or went to the spectators.
func TestGame(t *testing.T) {
	s := time.Second
	view := slots{{Ingame: true, Addr: netip.MustParseAddr("10.0.0.1")}, {Ingame: true, Addr: netip.MustParseAddr("10.0.0.2")},
		{Ingame: true, Addr: netip.MustParseAddr("10.0.0.3")}}
	var g Game
	if _, ok := g.MayCall(0, true, s); ok {
		t.Error("a spectator may call")
	}
	if _, ok := g.MayCall(0, false, s); !ok {
		t.Fatal("first call refused")
	}
	if _, ok := g.MayCall(0, false, s+CallInterval-1); ok {
		t.Error("second call within CallInterval")
	}
	m := g.Start(State{Active: true, Kind: StartSpec, Caller: 0, Target: 2, Desc: " 2: c"}, 10*s)
	if m.ClientID != 0 || m.Type != StartSpec || g.Ends != 10*s+Duration {
		t.Errorf("Start = %+v, ends %v", m, g.Ends)
	}
	if text, ok := g.MayCall(1, false, 11*s); ok || text == "" {
		t.Errorf("call during a vote: %q %v", text, ok)
	}
	if g.Cast(0, -1) || g.Cast(1, 0) {
		t.Error("the caller voted twice, or a 0 vote counted")
	}
	if st := g.Status(view); st.Yes != 1 || st.No != 0 || st.Pass != 2 || st.Total != 3 {
		t.Errorf("Status = %+v", st)
	}
	if _, r, _ := g.Tick(view, 11*s); r != 0 {
		t.Errorf("decided at 1 of 3: %d", r)
	}
	if _, ok := g.TeamChanged(2, false); ok {
		t.Error("aborted on a move to a team")
	}
	if _, ok := g.Left(1, false); ok {
		t.Error("aborted when another client left")
	}
	if !g.Cast(1, 5) { // counted as yes
		t.Fatal("second client's vote not counted")
	}
	v, r, end := g.Tick(view, 12*s)
	if r != EndPass || v.Target != 2 || end.Type != EndPass || g.Active {
		t.Fatalf("Tick = %+v %d %+v", v, r, end)
	}
	if _, ok := g.MayCall(0, false, 12*s); !ok {
		t.Error("a passed vote's caller may not call again at once")
	}

	g.Start(State{Active: true, Kind: StartSpec, Caller: 0, Target: 2}, 20*s)
	if m, ok := g.TeamChanged(2, true); !ok || m.Type != EndAbort || g.Active {
		t.Errorf("TeamChanged = %+v %v", m, ok)
	}
	g.Start(State{Active: true, Kind: StartKick, Caller: 0, Target: 2, Action: Action{Name: "ban"}}, 30*s)
	if _, ok := g.Left(2, false); ok {
		t.Error("a ban vote aborted when its target left unbanned")
	}
	if m, ok := g.Left(2, true); !ok || m.Type != EndAbort {
		t.Errorf("Left(banned) = %+v %v", m, ok)
	}
	g.Start(State{Active: true, Kind: StartKick, Caller: 0, Target: 2, Action: Action{Name: "kick"}}, 40*s)
	if _, ok := g.Left(2, false); !ok {
		t.Error("a kick vote not aborted when its target left")
	}
	g.Start(State{Active: true, Caller: 0, Target: -1}, 50*s)
	g.Clear(0)
	if !g.Cast(0, -1) {
		t.Error("a cleared slot cannot vote")
	}
}

func TestDecide(t *testing.T) {
	s := State{Active: true, Ends: 10 * time.Second}
	for _, tt := range []struct {
		yes, no, total int
		now            time.Duration
		enforce, want  int
	}{
		{2, 0, 3, 0, 0, EndPass},
		{1, 0, 3, 0, 0, 0},
		{0, 2, 3, 0, 0, EndFail},
		{1, 0, 3, 10 * time.Second, 0, EndFail},
		{0, 0, 3, 0, 1, EndPass},
		{3, 0, 3, 0, -1, EndPass},
		{0, 0, 3, 0, -1, EndFail},
	} {
		s.Enforce = tt.enforce
		if got := s.Decide(tt.yes, tt.no, tt.total, tt.now); got != tt.want {
			t.Errorf("Decide(%d, %d, %d, %v) enforce %d = %d, want %d", tt.yes, tt.no, tt.total, tt.now, tt.enforce, got, tt.want)
		}
	}
	if got := (&State{}).Decide(9, 0, 9, 0); got != 0 {
		t.Errorf("Decide without a vote = %d", got)
	}
}

func TestStateMessages(t *testing.T) {
	s := State{Active: true, Kind: StartKick, Caller: 3, Target: 1, Desc: " 1: a name longer than sixty-three bytes ............................", Reason: Reason(""), Ends: 30 * time.Second}
	if m := s.Started(); m.Timeout != 25 || len(m.Description) != MaxDescLen || m.Reason != NoReason || m.ClientID != 3 {
		t.Errorf("Started = %+v", m)
	}
	if m, ok := s.Ongoing(20 * time.Second); !ok || m.Timeout != 10 {
		t.Errorf("Ongoing = %+v %v", m, ok)
	}
	if !s.Force("YES") || s.Enforce != 1 {
		t.Errorf("Force(YES): enforce %d", s.Enforce)
	}
	v, m := s.End(EndPass)
	if v.Caller != 3 || m.ClientID != -1 || m.Type != EndPass || s.Active {
		t.Errorf("End = %+v %+v, state %+v", v, m, s)
	}
	if _, ok := s.Ongoing(0); ok || s.Force("no") {
		t.Error("an ended vote still runs")
	}
	if got := Reason("ääääääääää"); got != "äääääää" {
		t.Errorf("Reason cut at %q", got)
	}
}

func TestOptions(t *testing.T) {
	var o Options
	valid := func(l string) bool { return l != "bad" }
	if text, ok := o.Add(" Say hi", "say hi", valid); !ok || text != "added option 'Say hi' 'say hi'" {
		t.Fatalf("Add = %q %v", text, ok)
	}
	for _, tt := range [][2]string{{"say HI", "x"}, {"x", "bad"}, {"   ", "x"}} {
		if text, ok := o.Add(tt[0], tt[1], valid); ok {
			t.Errorf("Add(%q, %q) = %q, accepted", tt[0], tt[1], text)
		}
	}
	for i := range MaxOptionAdd + 1 {
		o.Add(string(rune('A'+i)), "x", valid)
	}
	var batches []int32
	o.Batches(func(m *gamemsg.SvVoteOptionListAdd) { batches = append(batches, m.Num) })
	if len(batches) != 2 || batches[0] != MaxOptionAdd || batches[1] != 2 {
		t.Errorf("batches %v", batches)
	}
	if text, r, ok := o.Remove("SAY HI"); !ok || r.Command != "say hi" || o.Find("Say hi") >= 0 {
		t.Errorf("Remove = %q %+v %v", text, r, ok)
	}
	if _, _, ok := o.Remove("nothing"); ok {
		t.Error("removed a missing option")
	}
}

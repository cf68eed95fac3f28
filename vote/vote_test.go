package vote

import (
	"net/netip"
	"testing"
	"time"

	"twserver/gamemsg"
)

type slots []Ballot

func (s slots) Len() int            { return len(s) }
func (s slots) Ballot(i int) Ballot { return s[i] }

func TestCountOneVotePerAddress(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	s := slots{
		{Ingame: true, Addr: a, Vote: 1, Pos: 2},
		{Ingame: true, Addr: a, Vote: -1, Pos: 1}, // same address, voted first: counts
		{Ingame: true, Addr: b, Vote: 1, Pos: 3},
		{Ingame: true, Spectator: true, Addr: netip.MustParseAddr("10.0.0.3"), Vote: 1, Pos: 4},
		{Ingame: false, Addr: netip.MustParseAddr("10.0.0.4"), Vote: 1, Pos: 5},
	}
	if yes, no, total := Count(s); yes != 1 || no != 1 || total != 2 {
		t.Fatalf("Count = %d yes %d no %d total, want 1 1 2", yes, no, total)
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

package vote

import (
	"errors"
	"time"
)

// Bounds of a Carried vote (it comes from another process: checked, never
// trusted).
const (
	// MaxCarriedText bounds a carried vote's command, description and
	// reason, each, in bytes.
	MaxCarriedText = 1024
	// MaxCarriedArgs bounds a carried kick or spectate vote's arguments.
	MaxCarriedArgs = 8
)

// Carried is a running vote as it passes to a live upgrade's new process:
// the vote, the time it has left and the ballots cast (JSON).
type Carried struct {
	Kind    int      `json:"kind"`
	Caller  int      `json:"caller"`
	Target  int      `json:"target"`
	Command string   `json:"command,omitempty"`
	Action  Action   `json:"action"`
	Desc    string   `json:"desc"`
	Reason  string   `json:"reason"`
	LeftMs  int64    `json:"left_ms"` // time left, milliseconds
	Enforce int      `json:"enforce,omitempty"`
	Pos     int      `json:"pos"`
	Ballots []Ballot `json:"ballots,omitempty"`
}

// Ballot is one slot's vote as Carried carries it.
type Ballot struct {
	Slot int `json:"slot"`
	Vote int `json:"vote"` // -1 or 1
	Pos  int `json:"pos"`  // when it voted (1 = first)
}

// Export returns the running vote at now for a live upgrade's new process,
// nil when none runs.
func (g *Game) Export(now time.Duration) *Carried {
	if !g.Active {
		return nil
	}
	c := &Carried{Kind: g.Kind, Caller: g.Caller, Target: g.Target, Command: g.Command, Action: g.Action,
		Desc: g.Desc, Reason: g.Reason, LeftMs: int64(max(g.Ends-now, 0) / time.Millisecond), Enforce: g.Enforce, Pos: g.Pos}
	for i := range g.slots {
		if b := &g.slots[i]; b.vote != 0 {
			c.Ballots = append(c.Ballots, Ballot{Slot: i, Vote: b.vote, Pos: b.pos})
		}
	}
	return c
}

// errCarried is Adopt's error for a vote that is not one Export makes.
var errCarried = errors.New("vote: a malformed carried vote")

// Adopt makes c (from Export in the old process) the running vote at now,
// with the time it had left and its ballots; nil adopts nothing. A vote
// whose kick or spectate target is not a slot in game in view is not
// adopted (its target did not pass the upgrade). It returns an error,
// and changes nothing, for a vote Export does not make.
func (g *Game) Adopt(c *Carried, now time.Duration, view Slots) error {
	if c == nil {
		return nil
	}
	if c.Kind < StartOp || c.Kind > StartSpec || c.Caller < -1 || c.Caller >= MaxSlots || c.Target < -1 || c.Target >= MaxSlots ||
		c.LeftMs < 0 || c.LeftMs > int64(Duration/time.Millisecond) || c.Enforce < -1 || c.Enforce > 1 ||
		c.Pos < 0 || c.Pos > MaxSlots || len(c.Ballots) > MaxSlots || len(c.Action.Args) > MaxCarriedArgs ||
		len(c.Command) > MaxCarriedText || len(c.Desc) > MaxCarriedText || len(c.Reason) > MaxCarriedText {
		return errCarried
	}
	for _, a := range c.Action.Args {
		if len(a) > MaxCarriedText {
			return errCarried
		}
	}
	var slots [MaxSlots]ballot
	for _, b := range c.Ballots {
		if b.Slot < 0 || b.Slot >= MaxSlots || (b.Vote != 1 && b.Vote != -1) || b.Pos < 1 || b.Pos > c.Pos || slots[b.Slot].vote != 0 {
			return errCarried
		}
		slots[b.Slot].vote, slots[b.Slot].pos = b.Vote, b.Pos
	}
	if c.Target >= 0 && (c.Target >= view.Len() || !view.Slot(c.Target).Ingame) {
		return nil
	}
	for i := range g.slots {
		g.slots[i].vote, g.slots[i].pos = slots[i].vote, slots[i].pos
	}
	g.State = State{Active: true, Kind: c.Kind, Caller: c.Caller, Target: c.Target, Command: c.Command, Action: c.Action,
		Desc: c.Desc, Reason: c.Reason, Ends: now + time.Duration(c.LeftMs)*time.Millisecond, Enforce: c.Enforce, Pos: c.Pos}
	return nil
}

package vote

import (
	"net/netip"
	"strings"
	"time"

	"twserver/gamemsg"
)

// Vote settings (reference values).
const (
	// Duration is how long a vote runs (VOTE_TIME 25 s).
	Duration = 25 * time.Second
	// CallInterval is the minimum time between two vote calls of one player.
	CallInterval = 3 * time.Second
	// MaxOptionAdd is MAX_VOTE_OPTION_ADD, options per Sv_VoteOptionListAdd.
	MaxOptionAdd = 21
	// MaxReasonLen is the longest reason a vote keeps, in bytes.
	MaxReasonLen = 15
	// MaxDescLen is the longest description a vote message carries, in bytes.
	MaxDescLen = 63
	// NoReason is the reason of a vote called without one.
	NoReason = "No reason given"
)

// VOTE_* values of Sv_VoteSet.
const (
	// StartOp: a vote on an option started.
	StartOp = 1
	// StartKick: a kick vote started.
	StartKick = 2
	// StartSpec: a vote to move a player to the spectators started.
	StartSpec = 3
	// EndAbort: the vote was aborted.
	EndAbort = 4
	// EndPass: the vote passed.
	EndPass = 5
	// EndFail: the vote failed.
	EndFail = 6
)

// State is the running vote (the zero value: none).
type State struct {
	// Active says a vote runs.
	Active bool
	// Kind is StartOp, StartKick or StartSpec.
	Kind int
	// Caller is the calling client's id, -1 for the server console.
	Caller int
	// Target is the client id of a kick or spectate vote, else -1.
	Target int
	// Command is the console command run when the vote passes: an
	// option's console line, or the text of Action.
	Command string
	// Action is a kick or spectate vote's command (Name empty for an
	// option's vote, which runs Command).
	Action Action
	// Desc is the description shown to the clients.
	Desc string
	// Reason is the caller's reason (Reason cuts it).
	Reason string
	// Ends is when the vote times out (the loop's clock).
	Ends time.Duration
	// Enforce is set by the console's vote command: 1 pass, -1 fail.
	Enforce int
	// Pos counts the votes cast so far (the order decides between clients
	// of one address).
	Pos int
}

// Reason returns a vote's reason as the reference keeps it: cut to
// MaxReasonLen bytes at a rune boundary, NoReason when empty.
func Reason(reason string) string {
	reason = gamemsg.TruncUTF8(reason, MaxReasonLen)
	if reason == "" {
		return NoReason
	}
	return reason
}

// MayCall reports whether a player whose last call was at last (0: never)
// may call a vote at now.
func MayCall(last, now time.Duration) bool { return last == 0 || now-last >= CallInterval }

// Started returns the Sv_VoteSet announcing s to every client at its start.
func (s *State) Started() gamemsg.SvVoteSet {
	return gamemsg.SvVoteSet{ClientID: int32(s.Caller), Type: int32(s.Kind), Timeout: int32(Duration / time.Second),
		Description: gamemsg.TruncUTF8(s.Desc, MaxDescLen), Reason: s.Reason}
}

// Forced returns the Sv_VoteSet telling the clients that s was carried out
// at once (force_vote or a forced call).
func (s *State) Forced() gamemsg.SvVoteSet {
	return gamemsg.SvVoteSet{ClientID: -1, Type: int32(s.Kind), Description: gamemsg.TruncUTF8(s.Desc, MaxDescLen), Reason: s.Reason}
}

// Ongoing returns the Sv_VoteSet for a client that gets ready while s runs
// (the time left, at most 60 s); ok is false when no vote runs.
func (s *State) Ongoing(now time.Duration) (m gamemsg.SvVoteSet, ok bool) {
	if !s.Active {
		return m, false
	}
	left := max(int32((s.Ends-now)/time.Second), 0)
	return gamemsg.SvVoteSet{ClientID: int32(s.Caller), Type: int32(s.Kind), Timeout: min(left, 60),
		Description: gamemsg.TruncUTF8(s.Desc, MaxDescLen), Reason: s.Reason}, true
}

// Abort ends s without a result and returns the Sv_VoteSet saying so.
func (s *State) Abort() gamemsg.SvVoteSet {
	caller := s.Caller
	*s = State{}
	return gamemsg.SvVoteSet{ClientID: int32(caller), Type: EndAbort}
}

// End ends s with result (EndPass or EndFail) and returns the ended vote
// and the Sv_VoteSet saying so: clients see the caller's id, or -1 for a
// forced result ("Admin forced vote yes").
func (s *State) End(result int) (State, gamemsg.SvVoteSet) {
	v := *s
	*s = State{}
	id := v.Caller
	if v.Enforce != 0 {
		id = -1
	}
	return v, gamemsg.SvVoteSet{ClientID: int32(id), Type: int32(result)}
}

// Force is the console's "vote yes|no": the running vote passes or fails
// at the next Decide. It reports whether a vote runs.
func (s *State) Force(arg string) bool {
	if !s.Active {
		return false
	}
	switch {
	case strings.EqualFold(arg, "yes"):
		s.Enforce = 1
	case strings.EqualFold(arg, "no"):
		s.Enforce = -1
	}
	return true
}

// Decide returns EndPass or EndFail when s is decided, forced or timed out
// at now, else 0.
func (s *State) Decide(yes, no, total int, now time.Duration) int {
	switch {
	case !s.Active:
		return 0
	case s.Enforce > 0 || yes >= total/2+1:
		return EndPass
	case s.Enforce < 0 || no >= (total+1)/2 || now >= s.Ends:
		return EndFail
	}
	return 0
}

// Slot is one client slot as the vote sees it.
type Slot struct {
	// Ingame says the slot holds a client in the game.
	Ingame bool
	// Spectator says the client is a spectator (spectators do not vote).
	Spectator bool
	// Addr is the client's IP address.
	Addr netip.Addr
	// Name is the client's name.
	Name string
	// Authed says the client is rcon-authenticated (kick votes spare it).
	Authed bool
}

// Slots is the loop's view of its client slots (at most MaxSlots).
type Slots interface {
	// Len is the number of slots.
	Len() int
	// Slot returns slot i.
	Slot(i int) Slot
}

// Count counts the votes as the reference: spectators do not vote, and of
// clients sharing an address only the first vote cast counts.
func (g *Game) Count(view Slots) (yes, no, total int) {
	var checked uint64
	n := min(view.Len(), MaxSlots)
	for i := range n {
		o := view.Slot(i)
		if !o.Ingame || o.Spectator || checked&(1<<i) != 0 {
			continue
		}
		act, pos := g.slots[i].vote, g.slots[i].pos
		for j := i + 1; j < n; j++ {
			p := view.Slot(j)
			if !p.Ingame || checked&(1<<j) != 0 || p.Addr != o.Addr {
				continue
			}
			checked |= 1 << j
			if pv := g.slots[j]; pv.vote != 0 && (act == 0 || pos > pv.pos) {
				act, pos = pv.vote, pv.pos
			}
		}
		total++
		switch {
		case act > 0:
			yes++
		case act < 0:
			no++
		}
	}
	return
}

package vote

import (
	"time"

	"twserver/gamemsg"
)

// MaxSlots bounds the client slots a Game counts (world.MaxClients).
const MaxSlots = 64

// Game is a game's votes: the running vote (State) and each client slot's
// ballot and last call. The zero value has no vote running. Loop
// goroutine only.
type Game struct {
	State
	slots [MaxSlots]ballot
}

// ballot is one slot's vote and call time.
type ballot struct {
	vote, pos int           // -1, 0 or 1; when it voted (1 = first)
	lastCall  time.Duration // its last vote call (0: never)
}

// Drop ends the running vote without a word (a map change).
func (g *Game) Drop() { g.State = State{} }

// Clear forgets slot cid's vote and last call (the client left or a new
// one took the slot).
func (g *Game) Clear(cid int) { g.slots[cid] = ballot{} }

// MayCall checks a player's call at now, as the reference: none while a
// vote runs (refusal is the chat text saying so), none within CallInterval
// of its last call, none from a spectator (silently). It notes the call
// when it may.
func (g *Game) MayCall(cid int, spectator bool, now time.Duration) (refusal string, ok bool) {
	switch {
	case g.Active:
		return "Wait for current vote to end before calling a new one.", false
	case !MayCall(g.slots[cid].lastCall, now), spectator:
		return "", false
	}
	g.slots[cid].lastCall = now
	return "", true
}

// Start makes v (from Call) the running vote at now, ending at now plus
// Duration: every ballot is cleared but the caller's, which votes yes. It
// returns the Sv_VoteSet announcing it.
func (g *Game) Start(v State, now time.Duration) gamemsg.SvVoteSet {
	for i := range g.slots {
		g.slots[i].vote, g.slots[i].pos = 0, 0
	}
	if v.Caller >= 0 {
		g.slots[v.Caller].vote, g.slots[v.Caller].pos = 1, 1
		v.Pos = 1
	}
	v.Ends = now + Duration
	g.State = v
	return v.Started()
}

// Cast records client cid's vote v (-1 no, 1 yes; 0 and a second vote are
// ignored) and reports whether it counted.
func (g *Game) Cast(cid, v int) bool {
	b := &g.slots[cid]
	if !g.Active || v == 0 || b.vote != 0 {
		return false
	}
	g.Pos++
	b.vote, b.pos = min(max(v, -1), 1), g.Pos
	return true
}

// Status counts the ballots of the slots in view (Count) into the
// Sv_VoteStatus the clients see.
func (g *Game) Status(view Slots) gamemsg.SvVoteStatus {
	yes, no, total := g.Count(view)
	return gamemsg.SvVoteStatus{Yes: int32(yes), No: int32(no), Pass: int32(total - yes - no), Total: int32(total)}
}

// Tick ends the running vote when it is decided, forced or timed out at
// now (Decide): it returns the ended vote, the result (EndPass, EndFail;
// 0 while it runs) and the Sv_VoteSet saying so. A passed vote's caller
// may call again at once.
func (g *Game) Tick(view Slots, now time.Duration) (State, int, gamemsg.SvVoteSet) {
	if !g.Active {
		return State{}, 0, gamemsg.SvVoteSet{}
	}
	yes, no, total := g.Count(view)
	result := g.Decide(yes, no, total, now)
	if result == 0 {
		return State{}, 0, gamemsg.SvVoteSet{}
	}
	v, m := g.End(result)
	if result == EndPass && v.Caller >= 0 {
		g.slots[v.Caller].lastCall = 0
	}
	return v, result, m
}

// Left aborts a kick or spectate vote whose target cid left; a ban vote
// only when the target was banned meanwhile, as the reference. ok says it
// was aborted; m is the Sv_VoteSet saying so.
func (g *Game) Left(cid int, banned bool) (m gamemsg.SvVoteSet, ok bool) {
	if !g.Active || g.Target != cid || (g.Action.Name == "ban" && !banned) {
		return m, false
	}
	return g.Abort(), true
}

// TeamChanged aborts a spectate vote whose target went to the spectators
// meanwhile (the reference's AbortVoteOnTeamChange).
func (g *Game) TeamChanged(cid int, spectator bool) (m gamemsg.SvVoteSet, ok bool) {
	if !g.Active || g.Kind != StartSpec || g.Target != cid || !spectator {
		return m, false
	}
	return g.Abort(), true
}

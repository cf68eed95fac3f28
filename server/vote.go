package server

import (
	"strings"
	"time"

	"twserver/console"
	"twserver/gamemsg"
	"twserver/metrics"
	"twserver/vote"
	"twserver/world"
)

// VoteDuration is how long a vote runs (VOTE_TIME 25 s).
const VoteDuration = vote.Duration

// sendVoteOptions sends Sv_VoteClearOptions and the vote options.
func (s *Server) sendVoteOptions(c *client) {
	s.sendGame(c, &gamemsg.SvVoteClearOptions{}, false)
	o := vote.Options{List: s.cfg.Votes}
	o.Batches(func(m *gamemsg.SvVoteOptionListAdd) { s.sendGame(c, m, false) })
}

// onCallVote handles Cl_CallVote: "option", "kick" or "spectate". An rcon
// authenticated client may force it (carried out at once, as the reference).
func (s *Server) onCallVote(c *client, m *gamemsg.ClCallVote, now time.Duration) {
	if m.Force {
		if !c.rconAuthed {
			return
		}
	} else {
		if s.vote.Active {
			s.serverChat(c.id, "Wait for current vote to end before calling a new one.")
			return
		}
		if !vote.MayCall(c.lastVote, now) {
			return
		}
		if s.world.Team(c.id) == world.TeamSpectators {
			return // the reference lets only players call votes
		}
		c.lastVote = now
	}
	s.callVote(c.id, m.Type, m.Value, m.Reason, m.Force, nil)
}

// callVote starts a vote of client caller (-1: the server console; by is
// the console command's caller, nil for a player's call), or with force
// carries it out at once, by the rules of vote.Call.
func (s *Server) callVote(caller int, typ, value, reason string, force bool, by *console.Caller) {
	req := vote.Request{Caller: caller, Type: typ, Value: value, Reason: reason, Force: force, Console: by != nil}
	v, line, ref := vote.Call(req, (*ballots)(s), s.cfg.Votes, s.cfg.Voting)
	if ref.Text != "" {
		switch {
		case by != nil:
			s.consoleOut(ref.Text)
		case ref.Chat:
			s.serverChat(caller, ref.Text)
		}
		return
	}
	s.consoleOut(line)
	if force {
		as := console.RconCaller(caller) // a player's forced vote runs as the player
		if by != nil {
			as = *by
		}
		s.runVote(as, &v)
		if v.Kind != vote.StartKick {
			m := v.Forced()
			s.broadcastGame(-1, &m)
		}
		return
	}
	for _, o := range s.clients {
		o.vote, o.votePos = 0, 0
	}
	if caller >= 0 {
		s.clients[caller].vote, s.clients[caller].votePos = 1, 1
		v.Pos = 1
	}
	v.Ends = s.now() + vote.Duration
	s.vote = v
	s.countEvent(metrics.EventVote)
	s.log.Info().Int("cid", caller).Str("type", typ).Str("value", value).Str("reason", v.Reason).Msg("vote called")
	m := v.Started()
	s.broadcastGame(-1, &m)
	s.sendVoteStatus()
}

// runVote runs a passed or forced vote's command for caller as: a kick or
// spectate vote's command by name (vote.Action), an option's console line.
func (s *Server) runVote(as console.Caller, v *vote.State) {
	var err error
	if a := v.Action; a.Name != "" {
		err = s.cons.Exec(as, a.Name, a.Args...)
	} else {
		err = s.cons.Run(as, v.Command)
	}
	if err == errShutdown {
		s.pendingShutdown = true
	}
}

// onVote records Cl_Vote (-1 no, 1 yes; 0 is ignored).
func (s *Server) onVote(c *client, v int) {
	if !s.vote.Active || v == 0 || c.vote != 0 {
		return
	}
	s.vote.Pos++
	c.vote, c.votePos = min(max(v, -1), 1), s.vote.Pos
	s.sendVoteStatus()
}

// forceVoteResult is the console's "vote yes|no": the running vote passes
// or fails at the next tick.
func (s *Server) forceVoteResult(arg string) {
	if s.vote.Force(arg) {
		s.consoleOut("forcing vote " + arg)
	}
}

// ballots is the loop's client slots as vote.Count sees them.
type ballots Server

// Len is the number of client slots.
func (b *ballots) Len() int { return len(b.clients) }

// Ballot returns slot i's vote.
func (b *ballots) Ballot(i int) vote.Ballot {
	c := b.clients[i]
	return vote.Ballot{Ingame: c.state == stateIngame, Spectator: b.world.Team(i) == world.TeamSpectators,
		Addr: c.addr.Addr(), Name: c.name, Authed: c.rconAuthed, Vote: c.vote, Pos: c.votePos}
}

func (s *Server) sendVoteStatus() {
	yes, no, total := vote.Count((*ballots)(s))
	s.broadcastGame(-1, &gamemsg.SvVoteStatus{Yes: int32(yes), No: int32(no), Pass: int32(total - yes - no), Total: int32(total)})
}

// tickVote ends the running vote when decided, forced or timed out; a
// passed vote's command runs first, as a vote's (console.Vote).
func (s *Server) tickVote() {
	if !s.vote.Active {
		return
	}
	yes, no, total := vote.Count((*ballots)(s))
	result := s.vote.Decide(yes, no, total, s.now())
	if result == 0 {
		return
	}
	v, m := s.vote.End(result)
	s.log.Info().Str("vote", v.Desc).Bool("passed", result == vote.EndPass).Bool("forced", v.Enforce != 0).Msg("vote ended")
	if result == vote.EndPass {
		s.runVote(console.Caller{Kind: console.Vote}, &v)
		if v.Caller >= 0 {
			s.clients[v.Caller].lastVote = 0
		}
	}
	s.broadcastGame(-1, &m)
}

// voteClientLeft aborts a kick or spectate vote whose target left (a ban
// vote only when the target was banned meanwhile, as the reference).
func (s *Server) voteClientLeft(cid int) {
	v := &s.vote
	if !v.Active || v.Target != cid {
		return
	}
	if v.Action.Name == "ban" {
		if s.bans.Lookup(s.clients[cid].addr.Addr().Unmap()) == nil {
			return
		}
	}
	m := v.Abort()
	s.broadcastGame(-1, &m)
}

// voteTeamChanged aborts a spectate vote whose target went to the
// spectators meanwhile (the reference's AbortVoteOnTeamChange).
func (s *Server) voteTeamChanged(cid, team int) {
	if v := &s.vote; v.Active && v.Kind == vote.StartSpec && v.Target == cid && team == world.TeamSpectators {
		m := v.Abort()
		s.broadcastGame(-1, &m)
	}
}

// resetVote drops a running vote silently (map change).
func (s *Server) resetVote() { s.vote = vote.State{} }

// addVoteOption is the reference's add_vote: checks, then Sv_VoteOptionAdd
// to every client.
func (s *Server) addVoteOption(desc, command string) {
	o := vote.Options{List: s.cfg.Votes}
	text, ok := o.Add(desc, command, console.Valid)
	s.cfg.Votes = o.List
	s.consoleOut(text)
	if ok {
		s.broadcastGame(-1, &gamemsg.SvVoteOptionAdd{Description: strings.TrimLeft(desc, " ")})
	}
}

// removeVoteOption is the reference's remove_vote.
func (s *Server) removeVoteOption(desc string) {
	o := vote.Options{List: s.cfg.Votes}
	text, removed, ok := o.Remove(desc)
	if ok {
		s.broadcastGame(-1, &gamemsg.SvVoteOptionRemove{Description: removed.Description})
		s.cfg.Votes = o.List
	}
	s.consoleOut(text)
}

// clearVoteOptions is the reference's clear_votes.
func (s *Server) clearVoteOptions() {
	s.consoleOut("cleared votes")
	s.broadcastGame(-1, &gamemsg.SvVoteClearOptions{})
	s.cfg.Votes = nil
}

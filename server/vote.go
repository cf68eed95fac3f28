package server

import (
	"strings"
	"time"

	"twserver/console"
	"twserver/gamemsg"
	"twserver/metrics"
	"twserver/session"
	"twserver/vote"
	"twserver/world"
)

// sendVoteOptions sends Sv_VoteClearOptions and the vote options.
func (s *Server) sendVoteOptions(c *client) {
	s.sendGame(c, &gamemsg.SvVoteClearOptions{}, false)
	o := vote.Options{List: s.cfg.Votes}
	o.Batches(func(m *gamemsg.SvVoteOptionListAdd) { s.sendGame(c, m, false) })
}

// onCallVote handles Cl_CallVote: "option", "kick" or "spectate". An rcon
// authenticated client may force it (carried out at once, as the reference).
func (s *Server) onCallVote(c *client, m *gamemsg.ClCallVote, now time.Duration) {
	if m.Force && !c.rcon.Authed {
		return
	}
	if !m.Force {
		if refusal, ok := s.vote.MayCall(c.id, s.world.Team(c.id) == world.TeamSpectators, now); !ok {
			if refusal != "" {
				s.serverChat(c.id, refusal)
			}
			return
		}
	}
	s.callVote(c.id, m.Type, m.Value, m.Reason, m.Force, nil)
}

// callVote starts a vote of client caller (-1: the server console; by is
// the console command's caller, nil for a player's call), or with force
// carries it out at once, by the rules of vote.Call.
func (s *Server) callVote(caller int, typ, value, reason string, force bool, by *console.Caller) {
	req := vote.Request{Caller: caller, Type: typ, Value: value, Reason: reason, Force: force, Console: by != nil}
	v, line, ref := vote.Call(req, (*voteSlots)(s), s.cfg.Votes, s.cfg.Voting)
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
	m := s.vote.Start(v, s.now())
	s.countEvent(metrics.EventVote)
	s.log.Info().Int("cid", caller).Str("type", typ).Str("value", value).Str("reason", v.Reason).Msg("vote called")
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
	if err == console.ErrShutdown {
		s.pendingShutdown = true
	}
}

// onVote records Cl_Vote (-1 no, 1 yes; 0 is ignored).
func (s *Server) onVote(c *client, v int) {
	if s.vote.Cast(c.id, v) {
		s.sendVoteStatus()
	}
}

// voteSlots is the loop's client slots as the votes see them.
type voteSlots Server

// Len is the number of client slots.
func (v *voteSlots) Len() int { return len(v.clients) }

// Slot returns slot i.
func (v *voteSlots) Slot(i int) vote.Slot {
	c := v.clients[i]
	return vote.Slot{Ingame: c.state == session.Ingame, Spectator: v.world.Team(i) == world.TeamSpectators,
		Addr: c.addr.Addr(), Name: c.name, Authed: c.rcon.Authed}
}

func (s *Server) sendVoteStatus() {
	m := s.vote.Status((*voteSlots)(s))
	s.broadcastGame(-1, &m)
}

// tickVote ends the running vote when decided, forced or timed out; a
// passed vote's command runs first, as a vote's (console.Vote).
func (s *Server) tickVote() {
	v, result, end := s.vote.Tick((*voteSlots)(s), s.now())
	if result == 0 {
		return
	}
	m := end // declared here: it escapes, and the tick without a result must not allocate
	s.log.Info().Str("vote", v.Desc).Bool("passed", result == vote.EndPass).Bool("forced", v.Enforce != 0).Msg("vote ended")
	if result == vote.EndPass {
		s.runVote(console.Caller{Kind: console.Vote}, &v)
	}
	s.broadcastGame(-1, &m)
}

// voteClientLeft aborts a kick or spectate vote whose target left (a ban
// vote only when the target was banned meanwhile).
func (s *Server) voteClientLeft(cid int) {
	banned := s.bans.Lookup(s.clients[cid].addr.Addr().Unmap()) != nil
	if abort, ok := s.vote.Left(cid, banned); ok {
		m := abort
		s.broadcastGame(-1, &m)
	}
}

// voteTeamChanged aborts a spectate vote whose target went to the
// spectators meanwhile.
func (s *Server) voteTeamChanged(cid, team int) {
	if abort, ok := s.vote.TeamChanged(cid, team == world.TeamSpectators); ok {
		m := abort
		s.broadcastGame(-1, &m)
	}
}

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

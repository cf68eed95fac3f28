package server

import (
	"fmt"
	"strings"
	"time"

	"twserver/console"
	"twserver/edge"
	"twserver/gamemsg"
	"twserver/teehist/replay"
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
		if !c.rcon.Authed {
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
// the console command's caller, nil for a player's call), or with
// force carries it out at once: the option's command, or the kick (a ban
// for voting.kick_ban_time minutes when that is not 0) or move to the
// spectators (blocked from rejoining for voting.spectate_rejoin_delay
// minutes). Kick and spectate votes follow voting.kick, voting.kick_min and
// voting.spectate, and spare rcon-authenticated clients from kicks, as the
// reference.
func (s *Server) callVote(caller int, typ, value, reason string, force bool, by *console.Caller) {
	reason = vote.Reason(reason)
	v := vote.State{Active: true, Caller: caller, Target: -1, Reason: reason}
	target := ""
	switch strings.ToLower(typ) {
	case "option":
		i := s.voteOption(value)
		if i < 0 {
			s.voteRefused(caller, by, "'"+value+"' isn't an option on this server")
			return
		}
		o := s.cfg.Votes[i]
		v.Kind, v.Desc, v.Command = vote.StartOp, o.Description, o.Command
		target = o.Description
	case "kick":
		if !s.cfg.Voting.Kick {
			s.consoleRefused(by, "kick votes are off (voting.kick)")
			return
		}
		if n := s.realPlayers(); n < s.cfg.Voting.KickMin {
			s.consoleRefused(by, fmt.Sprintf("kick votes need %d players, there are %d (voting.kick_min)", s.cfg.Voting.KickMin, n))
			return
		}
		id, ok := s.voteTarget(caller, by, value)
		if !ok {
			return
		}
		if s.clients[id].rcon.Authed {
			s.consoleRefused(by, "rcon-authenticated players cannot be kicked by vote")
			return
		}
		if bt := s.cfg.Voting.KickBanTime; bt > 0 {
			v.Command = fmt.Sprintf("ban %s %d Banned by vote", edge.RefAddr(s.clients[id].addr, false), bt)
		} else {
			v.Command = fmt.Sprintf("kick %d Kicked by vote", id)
		}
		v.Kind, v.Target = vote.StartKick, id
	case "spectate":
		if !s.cfg.Voting.Spectate {
			s.consoleRefused(by, "spectate votes are off (voting.spectate)")
			return
		}
		id, ok := s.voteTarget(caller, by, value)
		if !ok {
			return
		}
		if s.world.Team(id) == world.TeamSpectators {
			s.consoleRefused(by, fmt.Sprintf("client %d is a spectator already", id))
			return
		}
		v.Command = fmt.Sprintf("set_team %d -1 %d", id, s.cfg.Voting.SpectateRejoinDelay)
		v.Kind, v.Target = vote.StartSpec, id
	default:
		s.consoleRefused(by, "vote type must be option, kick or spectate")
		return
	}
	if v.Target >= 0 {
		v.Desc = fmt.Sprintf("%2d: %s", v.Target, s.clients[v.Target].name)
		target = fmt.Sprintf("%d:%s", v.Target, s.clients[v.Target].name)
	}
	callerName := "console"
	if caller >= 0 {
		callerName = s.clients[caller].name
	}
	force01 := 0
	if force {
		force01 = 1
	}
	s.consoleOut(fmt.Sprintf("'%d:%s' voted %s '%s' reason='%s' cmd='%s' force=%d", caller, callerName, typ, target, reason, v.Command, force01))
	if force {
		as := console.RconCaller(caller) // a player's forced vote runs as the player
		if by != nil {
			as = *by
		}
		if s.runConsole(as, v.Command) {
			s.pendingShutdown = true
		}
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
	s.countEvent(eventVote)
	s.log.Info().Int("cid", caller).Str("type", typ).Str("value", value).Str("reason", reason).Msg("vote called")
	m := v.Started()
	s.broadcastGame(-1, &m)
	s.sendVoteStatus()
}

// voteRefused tells the caller why a vote was not started: in chat for a
// player, on the console for the console (force_vote: by is its caller,
// nil for a player's call).
func (s *Server) voteRefused(caller int, by *console.Caller, text string) {
	if by != nil {
		s.consoleOut(text)
		return
	}
	s.serverChat(caller, text)
}

// consoleRefused tells force_vote's user why nothing happened; a player's
// call is refused silently there, as the reference (the client offers only
// what Sv_ServerSettings allows).
func (s *Server) consoleRefused(by *console.Caller, text string) {
	if by != nil {
		s.consoleOut(text)
	}
}

// voteTarget reads the client id of a kick or spectate vote: an in-game
// client other than the caller.
func (s *Server) voteTarget(caller int, by *console.Caller, value string) (int, bool) {
	id := replay.IntArg(value)
	if id < 0 || id >= len(s.clients) || s.clients[id].state != stateIngame {
		s.voteRefused(caller, by, "Invalid client id to vote on")
		return 0, false
	}
	if id == caller {
		s.voteRefused(caller, by, "You can't vote on yourself")
		return 0, false
	}
	return id, true
}

// realPlayers counts the in-game clients that are not spectators (the
// reference's GetRealPlayerNum, compared with voting.kick_min).
func (s *Server) realPlayers() int {
	n := 0
	for _, c := range s.clients {
		if c.state == stateIngame && s.world.Team(c.id) != world.TeamSpectators {
			n++
		}
	}
	return n
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
		Addr: c.addr.Addr(), Vote: c.vote, Pos: c.votePos}
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
		if s.runConsole(console.Caller{Kind: console.Vote}, v.Command) {
			s.pendingShutdown = true
		}
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
	if strings.HasPrefix(v.Command, "ban ") {
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

// voteOption returns the index of the option with description desc
// (case-insensitive), or -1.
func (s *Server) voteOption(desc string) int {
	o := vote.Options{List: s.cfg.Votes}
	return o.Find(desc)
}

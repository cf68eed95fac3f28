package server

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"twserver/config"
	"twserver/console"
	"twserver/gamemsg"
	"twserver/teehist/replay"
	"twserver/world"
)

// Vote settings (reference values).
const (
	// VoteDuration is how long a vote runs (VOTE_TIME 25 s).
	VoteDuration = 25 * time.Second
	// voteCallInterval is the minimum time between two vote calls of one player.
	voteCallInterval = 3 * time.Second
	// maxVoteOptionAdd is MAX_VOTE_OPTION_ADD, options per Sv_VoteOptionListAdd.
	maxVoteOptionAdd = 21
)

// VOTE_* values of Sv_VoteSet.
const (
	voteStartOp   = 1
	voteStartKick = 2
	voteStartSpec = 3
	voteEndAbort  = 4
	voteEndPass   = 5
	voteEndFail   = 6
)

// voteState is the running vote, owned by the loop.
type voteState struct {
	active  bool
	kind    int // voteStartOp, voteStartKick, voteStartSpec
	caller  int
	target  int    // client id for kick/spectate
	command string // console command run when the vote passes
	desc    string
	reason  string
	ends    time.Duration
	enforce int // set by the console's vote command: 1 pass, -1 fail
	pos     int // votes cast so far (the order decides between clients of one address)
}

// sendVoteOptions sends Sv_VoteClearOptions and the vote options.
func (s *Server) sendVoteOptions(c *client) {
	s.sendGame(c, &gamemsg.SvVoteClearOptions{}, false)
	opts := s.cfg.Votes
	for len(opts) > 0 {
		n := min(len(opts), maxVoteOptionAdd)
		var m gamemsg.SvVoteOptionListAdd
		m.Num = int32(n)
		for i := range n {
			m.Descriptions[i] = opts[i].Description
		}
		s.sendGame(c, &m, false)
		opts = opts[n:]
	}
}

// onCallVote handles Cl_CallVote: "option", "kick" or "spectate". An rcon
// authenticated client may force it (carried out at once, as the reference).
func (s *Server) onCallVote(c *client, m *gamemsg.ClCallVote, now time.Duration) {
	if m.Force {
		if !c.rconAuthed {
			return
		}
	} else {
		if s.vote.active {
			s.serverChat(c.id, "Wait for current vote to end before calling a new one.")
			return
		}
		if c.lastVote != 0 && now-c.lastVote < voteCallInterval {
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
	reason = truncUTF8(reason, 15)
	if reason == "" {
		reason = "No reason given"
	}
	v := voteState{active: true, caller: caller, target: -1, reason: reason}
	target := ""
	switch strings.ToLower(typ) {
	case "option":
		i := s.voteOption(value)
		if i < 0 {
			s.voteRefused(caller, by, "'"+value+"' isn't an option on this server")
			return
		}
		o := s.cfg.Votes[i]
		v.kind, v.desc, v.command = voteStartOp, o.Description, o.Command
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
		if s.clients[id].rconAuthed {
			s.consoleRefused(by, "rcon-authenticated players cannot be kicked by vote")
			return
		}
		if bt := s.cfg.Voting.KickBanTime; bt > 0 {
			v.command = fmt.Sprintf("ban %s %d Banned by vote", refAddr(s.clients[id].addr, false), bt)
		} else {
			v.command = fmt.Sprintf("kick %d Kicked by vote", id)
		}
		v.kind, v.target = voteStartKick, id
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
		v.command = fmt.Sprintf("set_team %d -1 %d", id, s.cfg.Voting.SpectateRejoinDelay)
		v.kind, v.target = voteStartSpec, id
	default:
		s.consoleRefused(by, "vote type must be option, kick or spectate")
		return
	}
	if v.target >= 0 {
		v.desc = fmt.Sprintf("%2d: %s", v.target, s.clients[v.target].name)
		target = fmt.Sprintf("%d:%s", v.target, s.clients[v.target].name)
	}
	callerName := "console"
	if caller >= 0 {
		callerName = s.clients[caller].name
	}
	force01 := 0
	if force {
		force01 = 1
	}
	s.consoleOut(fmt.Sprintf("'%d:%s' voted %s '%s' reason='%s' cmd='%s' force=%d", caller, callerName, typ, target, reason, v.command, force01))
	if force {
		as := console.RconCaller(caller) // a player's forced vote runs as the player
		if by != nil {
			as = *by
		}
		if s.runConsole(as, v.command) {
			s.pendingShutdown = true
		}
		if v.kind != voteStartKick {
			s.broadcastGame(-1, &gamemsg.SvVoteSet{ClientID: -1, Type: int32(v.kind), Description: truncUTF8(v.desc, 63), Reason: v.reason})
		}
		return
	}
	for _, o := range s.clients {
		o.vote, o.votePos = 0, 0
	}
	if caller >= 0 {
		s.clients[caller].vote, s.clients[caller].votePos = 1, 1
		v.pos = 1
	}
	v.ends = s.now() + VoteDuration
	s.vote = v
	s.countEvent(eventVote)
	s.log.Info().Int("cid", caller).Str("type", typ).Str("value", value).Str("reason", reason).Msg("vote called")
	s.broadcastGame(-1, &gamemsg.SvVoteSet{ClientID: int32(caller), Type: int32(v.kind), Timeout: int32(VoteDuration / time.Second),
		Description: truncUTF8(v.desc, 63), Reason: v.reason})
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
func (s *Server) onVote(c *client, vote int) {
	if !s.vote.active || vote == 0 || c.vote != 0 {
		return
	}
	s.vote.pos++
	c.vote, c.votePos = min(max(vote, -1), 1), s.vote.pos
	s.sendVoteStatus()
}

// forceVoteResult is the console's "vote yes|no": the running vote passes
// or fails at the next tick.
func (s *Server) forceVoteResult(arg string) {
	if !s.vote.active {
		return
	}
	switch {
	case strings.EqualFold(arg, "yes"):
		s.vote.enforce = 1
	case strings.EqualFold(arg, "no"):
		s.vote.enforce = -1
	}
	s.consoleOut("forcing vote " + arg)
}

// voteCounts counts the votes as the reference: spectators do not vote, and
// of clients sharing an address only the first vote cast counts.
func (s *Server) voteCounts() (yes, no, total int) {
	var checked uint64
	for i, o := range s.clients {
		if o.state != stateIngame || s.world.Team(i) == world.TeamSpectators || checked&(1<<i) != 0 {
			continue
		}
		act, pos := o.vote, o.votePos
		for j := i + 1; j < len(s.clients); j++ {
			p := s.clients[j]
			if p.state != stateIngame || checked&(1<<j) != 0 || p.addr.Addr() != o.addr.Addr() {
				continue
			}
			checked |= 1 << j
			if p.vote != 0 && (act == 0 || pos > p.votePos) {
				act, pos = p.vote, p.votePos
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

func (s *Server) sendVoteStatus() {
	yes, no, total := s.voteCounts()
	s.broadcastGame(-1, &gamemsg.SvVoteStatus{Yes: int32(yes), No: int32(no), Pass: int32(total - yes - no), Total: int32(total)})
}

// tickVote ends the running vote when decided, forced or timed out.
func (s *Server) tickVote() {
	if !s.vote.active {
		return
	}
	yes, no, total := s.voteCounts()
	switch {
	case s.vote.enforce > 0 || yes >= total/2+1:
		s.endVote(voteEndPass)
	case s.vote.enforce < 0 || no >= (total+1)/2 || s.now() >= s.vote.ends:
		s.endVote(voteEndFail)
	}
}

// endVote ends the running vote; a passed vote's command runs first, as a
// vote's (console.Vote). Clients see the caller's id, or -1 for a forced
// result ("Admin forced vote yes").
func (s *Server) endVote(result int) {
	v := s.vote
	s.vote = voteState{}
	s.log.Info().Str("vote", v.desc).Bool("passed", result == voteEndPass).Bool("forced", v.enforce != 0).Msg("vote ended")
	if result == voteEndPass {
		if s.runConsole(console.Caller{Kind: console.Vote}, v.command) {
			s.pendingShutdown = true
		}
		if v.caller >= 0 {
			s.clients[v.caller].lastVote = 0
		}
	}
	id := v.caller
	if v.enforce != 0 {
		id = -1
	}
	s.broadcastGame(-1, &gamemsg.SvVoteSet{ClientID: int32(id), Type: int32(result)})
}

// voteClientLeft aborts a kick or spectate vote whose target left (a ban
// vote only when the target was banned meanwhile, as the reference).
func (s *Server) voteClientLeft(cid int) {
	v := &s.vote
	if !v.active || v.target != cid {
		return
	}
	if strings.HasPrefix(v.command, "ban ") {
		if s.bans.Lookup(s.clients[cid].addr.Addr().Unmap()) == nil {
			return
		}
	}
	caller := v.caller
	s.vote = voteState{}
	s.broadcastGame(-1, &gamemsg.SvVoteSet{ClientID: int32(caller), Type: voteEndAbort})
}

// voteTeamChanged aborts a spectate vote whose target went to the
// spectators meanwhile (the reference's AbortVoteOnTeamChange).
func (s *Server) voteTeamChanged(cid, team int) {
	if v := &s.vote; v.active && v.kind == voteStartSpec && v.target == cid && team == world.TeamSpectators {
		caller := v.caller
		s.vote = voteState{}
		s.broadcastGame(-1, &gamemsg.SvVoteSet{ClientID: int32(caller), Type: voteEndAbort})
	}
}

// resetVote drops a running vote silently (map change).
func (s *Server) resetVote() { s.vote = voteState{} }

// addVoteOption is the reference's add_vote: checks, then Sv_VoteOptionAdd
// to every client.
func (s *Server) addVoteOption(desc, command string) {
	if len(s.cfg.Votes) >= config.MaxVoteOptions {
		s.consoleOut("maximum number of vote options reached")
		return
	}
	if !s.lineIsValid(command) || len(command) > config.MaxVoteCmdLen {
		s.consoleOut(fmt.Sprintf("skipped invalid command '%s'", command))
		return
	}
	desc = strings.TrimLeft(desc, " ")
	if desc == "" || len(desc) > config.MaxVoteDescLen {
		s.consoleOut(fmt.Sprintf("skipped invalid option '%s'", desc))
		return
	}
	if s.voteOption(desc) >= 0 {
		s.consoleOut(fmt.Sprintf("option '%s' already exists", desc))
		return
	}
	// a new slice: the configuration's own may be shared with the caller of New
	s.cfg.Votes = append(slices.Clip(s.cfg.Votes), config.VoteOption{Description: desc, Command: command})
	s.consoleOut(fmt.Sprintf("added option '%s' '%s'", desc, command))
	s.broadcastGame(-1, &gamemsg.SvVoteOptionAdd{Description: desc})
}

// removeVoteOption is the reference's remove_vote.
func (s *Server) removeVoteOption(desc string) {
	i := s.voteOption(desc)
	if i < 0 {
		s.consoleOut(fmt.Sprintf("option '%s' does not exist", desc))
		return
	}
	o := s.cfg.Votes[i]
	s.broadcastGame(-1, &gamemsg.SvVoteOptionRemove{Description: o.Description})
	s.cfg.Votes = slices.Concat(s.cfg.Votes[:i], s.cfg.Votes[i+1:])
	s.consoleOut(fmt.Sprintf("removed option '%s' '%s'", o.Description, o.Command))
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
	for i, o := range s.cfg.Votes {
		if strings.EqualFold(o.Description, desc) {
			return i
		}
	}
	return -1
}

// lineIsValid reports whether every command of line exists and has valid
// arguments (the reference's check of vote commands).
func (s *Server) lineIsValid(line string) bool {
	return console.Valid(line)
}

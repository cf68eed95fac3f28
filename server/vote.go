package server

import (
	"strconv"
	"strings"
	"time"

	"twserver/gamemsg"
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
	command string // console command for an option vote
	desc    string
	reason  string
	ends    time.Duration
}

// sendVoteOptions sends Sv_VoteClearOptions and the configured options.
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

// onCallVote starts a vote (Cl_CallVote): "option", "kick" or "spectate".
func (s *Server) onCallVote(c *client, m *gamemsg.ClCallVote, now time.Duration) {
	if s.vote.active {
		s.serverChat(c.id, "Wait for current vote to end before calling a new one.")
		return
	}
	if c.lastVote != 0 && now-c.lastVote < voteCallInterval {
		return
	}
	c.lastVote = now
	v := voteState{active: true, caller: c.id, target: -1, ends: now + VoteDuration, reason: truncUTF8(m.Reason, 15)}
	switch strings.ToLower(m.Type) {
	case "option":
		found := false
		for _, o := range s.cfg.Votes {
			if o.Description == m.Value {
				v.kind, v.command, v.desc, found = voteStartOp, o.Command, o.Description, true
				break
			}
		}
		if !found {
			s.serverChat(c.id, "'"+m.Value+"' isn't an option on this server")
			return
		}
	case "kick", "spectate":
		id, err := strconv.Atoi(m.Value)
		if err != nil || id < 0 || id >= len(s.clients) || s.clients[id].state != stateIngame {
			s.serverChat(c.id, "Invalid client id to vote on")
			return
		}
		if id == c.id {
			s.serverChat(c.id, "You can't vote on yourself")
			return
		}
		v.target = id
		v.desc = s.clients[id].name
		v.kind = voteStartKick
		if strings.EqualFold(m.Type, "spectate") {
			v.kind = voteStartSpec
		}
	default:
		return
	}
	for _, o := range s.clients {
		o.vote = 0
	}
	c.vote = 1
	s.vote = v
	s.conVote(c, m.Type, &v)
	s.countEvent(eventVote)
	s.log.Info().Int("cid", c.id).Str("type", m.Type).Str("value", m.Value).Str("reason", m.Reason).Msg("vote called")
	s.broadcastGame(-1, &gamemsg.SvVoteSet{ClientID: int32(c.id), Type: int32(v.kind), Timeout: int32(VoteDuration / time.Second),
		Description: truncUTF8(v.desc, 63), Reason: v.reason})
	s.sendVoteStatus()
}

// onVote records Cl_Vote (-1 no, 1 yes; 0 is ignored).
func (s *Server) onVote(c *client, vote int) {
	if !s.vote.active || vote == 0 || c.vote != 0 {
		return
	}
	c.vote = vote
	s.sendVoteStatus()
}

func (s *Server) voteCounts() (yes, no, total int) {
	for _, o := range s.clients {
		if o.state != stateIngame {
			continue
		}
		total++
		switch o.vote {
		case 1:
			yes++
		case -1:
			no++
		}
	}
	return
}

func (s *Server) sendVoteStatus() {
	yes, no, total := s.voteCounts()
	s.broadcastGame(-1, &gamemsg.SvVoteStatus{Yes: int32(yes), No: int32(no), Pass: int32(total - yes - no), Total: int32(total)})
}

// tickVote ends the running vote when decided or timed out.
func (s *Server) tickVote() {
	if !s.vote.active {
		return
	}
	yes, no, total := s.voteCounts()
	switch {
	case yes >= total/2+1:
		s.endVote(voteEndPass)
	case no >= (total+1)/2 || s.now() >= s.vote.ends:
		s.endVote(voteEndFail)
	}
}

func (s *Server) endVote(result int) {
	v := s.vote
	s.vote = voteState{}
	s.broadcastGame(-1, &gamemsg.SvVoteSet{ClientID: -1, Type: int32(result)})
	s.log.Info().Str("vote", v.desc).Bool("passed", result == voteEndPass).Msg("vote ended")
	if result != voteEndPass {
		return
	}
	switch v.kind {
	case voteStartOp:
		s.rconFrom = -1
		if s.execLine(v.command) == errShutdown {
			s.pendingShutdown = true
		}
	case voteStartKick:
		if t := s.clients[v.target]; t.state != stateEmpty {
			s.dropClient(t, "Kicked by vote")
		}
	case voteStartSpec:
		if t := s.clients[v.target]; t.state == stateIngame {
			s.recSetTeam(v.target, teamSpectators)
			s.world.ForceTeam(v.target, teamSpectators)
		}
	}
}

// voteClientLeft aborts a vote about (or called by) a leaving client.
func (s *Server) voteClientLeft(cid int) {
	if s.vote.active && (s.vote.target == cid || s.vote.caller == cid) {
		s.vote = voteState{}
		s.broadcastGame(-1, &gamemsg.SvVoteSet{ClientID: -1, Type: voteEndAbort})
	}
}

// resetVote drops a running vote silently (map change).
func (s *Server) resetVote() { s.vote = voteState{} }

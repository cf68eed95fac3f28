package gamemsg

// SvVoteClearOptions (NETMSGTYPE_SV_VOTECLEAROPTIONS) empties the client's vote menu.
type SvVoteClearOptions struct{}

// ID implements Message.
func (*SvVoteClearOptions) ID() int32 { return MsgSvVoteClearOptions }

// Validate implements Message.
func (*SvVoteClearOptions) Validate() error { return nil }

// Encode implements Message.
func (*SvVoteClearOptions) Encode(w Writer) error { header(w, MsgSvVoteClearOptions); return nil }

// Decode implements Message.
func (m *SvVoteClearOptions) Decode(r Reader) error {
	c := checker{msg: MsgSvVoteClearOptions}
	return c.done(r, m)
}

// SvVoteOptionListAdd (NETMSGTYPE_SV_VOTEOPTIONLISTADD) adds up to
// MaxVoteOptionAdd vote options: a count, then that many descriptions
// (custom-packed, net.md A5.7). Only Descriptions[:Num] are used.
type SvVoteOptionListAdd struct {
	Num          int32 // 0..MaxVoteOptionAdd
	Descriptions [MaxVoteOptionAdd]string
}

// ID implements Message.
func (*SvVoteOptionListAdd) ID() int32 { return MsgSvVoteOptionListAdd }

// Validate implements Message.
func (m *SvVoteOptionListAdd) Validate() error {
	c := checker{msg: MsgSvVoteOptionListAdd}
	c.rng("num_options", m.Num, 0, MaxVoteOptionAdd)
	return c.err
}

// Encode implements Message.
func (m *SvVoteOptionListAdd) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvVoteOptionListAdd)
	w.AddInt(m.Num)
	for _, d := range m.Descriptions[:m.Num] {
		w.AddString(d)
	}
	return nil
}

// Decode implements Message.
func (m *SvVoteOptionListAdd) Decode(r Reader) error {
	m.Num = r.GetInt()
	m.Descriptions = [MaxVoteOptionAdd]string{}
	c := checker{msg: MsgSvVoteOptionListAdd}
	c.rng("num_options", m.Num, 0, MaxVoteOptionAdd)
	if c.err == nil {
		for i := range m.Descriptions[:m.Num] {
			m.Descriptions[i] = getStrict(r)
		}
	}
	return c.done(r, m)
}

// SvVoteOptionAdd (NETMSGTYPE_SV_VOTEOPTIONADD) adds one vote option.
type SvVoteOptionAdd struct{ Description string }

// ID implements Message.
func (*SvVoteOptionAdd) ID() int32 { return MsgSvVoteOptionAdd }

// Validate implements Message.
func (*SvVoteOptionAdd) Validate() error { return nil }

// Encode implements Message.
func (m *SvVoteOptionAdd) Encode(w Writer) error {
	header(w, MsgSvVoteOptionAdd)
	w.AddString(m.Description)
	return nil
}

// Decode implements Message.
func (m *SvVoteOptionAdd) Decode(r Reader) error {
	m.Description = getStrict(r)
	c := checker{msg: MsgSvVoteOptionAdd}
	return c.done(r, m)
}

// SvVoteOptionRemove (NETMSGTYPE_SV_VOTEOPTIONREMOVE) removes one vote option.
type SvVoteOptionRemove struct{ Description string }

// ID implements Message.
func (*SvVoteOptionRemove) ID() int32 { return MsgSvVoteOptionRemove }

// Validate implements Message.
func (*SvVoteOptionRemove) Validate() error { return nil }

// Encode implements Message.
func (m *SvVoteOptionRemove) Encode(w Writer) error {
	header(w, MsgSvVoteOptionRemove)
	w.AddString(m.Description)
	return nil
}

// Decode implements Message.
func (m *SvVoteOptionRemove) Decode(r Reader) error {
	m.Description = getStrict(r)
	c := checker{msg: MsgSvVoteOptionRemove}
	return c.done(r, m)
}

// SvVoteSet (NETMSGTYPE_SV_VOTESET) starts or ends a vote.
type SvVoteSet struct {
	ClientID    int32 // -1..63
	Type        int32 // VOTE_* 0..6
	Timeout     int32 // 0..60 seconds
	Description string
	Reason      string
}

// ID implements Message.
func (*SvVoteSet) ID() int32 { return MsgSvVoteSet }

// Validate implements Message.
func (m *SvVoteSet) Validate() error {
	c := checker{msg: MsgSvVoteSet}
	c.rng("client_id", m.ClientID, -1, MaxClients-1)
	c.rng("type", m.Type, 0, NumVoteTypes-1)
	c.rng("timeout", m.Timeout, 0, MaxVoteTimeout)
	return c.err
}

// Encode implements Message.
func (m *SvVoteSet) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvVoteSet)
	w.AddInt(m.ClientID)
	w.AddInt(m.Type)
	w.AddInt(m.Timeout)
	w.AddString(m.Description)
	w.AddString(m.Reason)
	return nil
}

// Decode implements Message.
func (m *SvVoteSet) Decode(r Reader) error {
	m.ClientID = r.GetInt()
	m.Type = r.GetInt()
	m.Timeout = r.GetInt()
	m.Description = getStrict(r)
	m.Reason = getStrict(r)
	c := checker{msg: MsgSvVoteSet}
	return c.done(r, m)
}

// SvVoteStatus (NETMSGTYPE_SV_VOTESTATUS) carries the running vote's counts.
type SvVoteStatus struct {
	Yes, No, Pass, Total int32 // each 0..64
}

// ID implements Message.
func (*SvVoteStatus) ID() int32 { return MsgSvVoteStatus }

// Validate implements Message.
func (m *SvVoteStatus) Validate() error {
	c := checker{msg: MsgSvVoteStatus}
	c.rng("yes", m.Yes, 0, MaxVoteCount)
	c.rng("no", m.No, 0, MaxVoteCount)
	c.rng("pass", m.Pass, 0, MaxVoteCount)
	c.rng("total", m.Total, 0, MaxVoteCount)
	return c.err
}

// Encode implements Message.
func (m *SvVoteStatus) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvVoteStatus)
	w.AddInt(m.Yes)
	w.AddInt(m.No)
	w.AddInt(m.Pass)
	w.AddInt(m.Total)
	return nil
}

// Decode implements Message.
func (m *SvVoteStatus) Decode(r Reader) error {
	m.Yes = r.GetInt()
	m.No = r.GetInt()
	m.Pass = r.GetInt()
	m.Total = r.GetInt()
	c := checker{msg: MsgSvVoteStatus}
	return c.done(r, m)
}

// ClVote (NETMSGTYPE_CL_VOTE) is a client's vote: -1 no, 0 pass, 1 yes.
type ClVote struct{ Vote int32 }

// ID implements Message.
func (*ClVote) ID() int32 { return MsgClVote }

// Validate implements Message.
func (m *ClVote) Validate() error {
	c := checker{msg: MsgClVote}
	c.rng("vote", m.Vote, -1, 1)
	return c.err
}

// Encode implements Message.
func (m *ClVote) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgClVote)
	w.AddInt(m.Vote)
	return nil
}

// Decode implements Message.
func (m *ClVote) Decode(r Reader) error {
	m.Vote = r.GetInt()
	c := checker{msg: MsgClVote}
	return c.done(r, m)
}

// ClCallVote (NETMSGTYPE_CL_CALLVOTE) asks for a vote. Type is "option",
// "kick" or "spectate"; Value is the option text or the client id as text.
type ClCallVote struct {
	Type   string
	Value  string
	Reason string
	Force  bool
}

// ID implements Message.
func (*ClCallVote) ID() int32 { return MsgClCallVote }

// Validate implements Message.
func (*ClCallVote) Validate() error { return nil }

// Encode implements Message.
func (m *ClCallVote) Encode(w Writer) error {
	header(w, MsgClCallVote)
	w.AddString(m.Type)
	w.AddString(m.Value)
	w.AddString(m.Reason)
	w.AddInt(b2i(m.Force))
	return nil
}

// Decode implements Message.
func (m *ClCallVote) Decode(r Reader) error {
	c := checker{msg: MsgClCallVote}
	m.Type = getStrict(r)
	m.Value = getStrict(r)
	m.Reason = getStrict(r)
	m.Force = getBool(r, &c, "force")
	return c.done(r, m)
}

package gamemsg

// optionalIntReader is implemented by readers that can read an optional
// trailing int (GetIntOrDefault, net.md A2.3).
type optionalIntReader interface {
	GetIntOrDefault(def int32) int32
}

// SvRaceFinish (NETMSGTYPE_SV_RACEFINISH) reports a finished race.
type SvRaceFinish struct {
	ClientID       int32 // 0..63
	Time           int32 // -1..max, milliseconds
	Diff           int32
	RecordPersonal bool
	RecordServer   bool // optional trailing field, default false
}

// ID implements Message.
func (*SvRaceFinish) ID() int32 { return MsgSvRaceFinish }

// Validate implements Message.
func (m *SvRaceFinish) Validate() error {
	c := checker{msg: MsgSvRaceFinish}
	c.rng("client_id", m.ClientID, 0, MaxClients-1)
	c.rng("time", m.Time, -1, maxInt32)
	return c.err
}

// Encode implements Message.
func (m *SvRaceFinish) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvRaceFinish)
	w.AddInt(m.ClientID)
	w.AddInt(m.Time)
	w.AddInt(m.Diff)
	w.AddInt(b2i(m.RecordPersonal))
	w.AddInt(b2i(m.RecordServer))
	return nil
}

// Decode implements Message. The trailing record_server field is read as
// optional when r implements GetIntOrDefault, else it is required.
func (m *SvRaceFinish) Decode(r Reader) error {
	c := checker{msg: MsgSvRaceFinish}
	m.ClientID = r.GetInt()
	m.Time = r.GetInt()
	m.Diff = r.GetInt()
	m.RecordPersonal = getBool(r, &c, "record_personal")
	var rs int32
	if o, ok := r.(optionalIntReader); ok {
		rs = o.GetIntOrDefault(0)
	} else {
		rs = r.GetInt()
	}
	c.rng("record_server", rs, 0, 1)
	m.RecordServer = rs == 1
	return c.done(r, m)
}

// SvCheckpoint (NETMSGTYPE_SV_CHECKPOINT) reports a race checkpoint time difference.
type SvCheckpoint struct{ Diff int32 }

// ID implements Message.
func (*SvCheckpoint) ID() int32 { return MsgSvCheckpoint }

// Validate implements Message.
func (*SvCheckpoint) Validate() error { return nil }

// Encode implements Message.
func (m *SvCheckpoint) Encode(w Writer) error {
	header(w, MsgSvCheckpoint)
	w.AddInt(m.Diff)
	return nil
}

// Decode implements Message.
func (m *SvCheckpoint) Decode(r Reader) error {
	m.Diff = r.GetInt()
	c := checker{msg: MsgSvCheckpoint}
	return c.done(r, m)
}

// SvCommandInfo (NETMSGTYPE_SV_COMMANDINFO) announces a chat command.
type SvCommandInfo struct {
	Name       string
	ArgsFormat string
	HelpText   string
}

// ID implements Message.
func (*SvCommandInfo) ID() int32 { return MsgSvCommandInfo }

// Validate implements Message.
func (*SvCommandInfo) Validate() error { return nil }

// Encode implements Message.
func (m *SvCommandInfo) Encode(w Writer) error {
	header(w, MsgSvCommandInfo)
	w.AddString(m.Name)
	w.AddString(m.ArgsFormat)
	w.AddString(m.HelpText)
	return nil
}

// Decode implements Message.
func (m *SvCommandInfo) Decode(r Reader) error {
	m.Name = getStrict(r)
	m.ArgsFormat = getStrict(r)
	m.HelpText = getStrict(r)
	c := checker{msg: MsgSvCommandInfo}
	return c.done(r, m)
}

// SvCommandInfoRemove (NETMSGTYPE_SV_COMMANDINFOREMOVE) withdraws a chat command.
type SvCommandInfoRemove struct{ Name string }

// ID implements Message.
func (*SvCommandInfoRemove) ID() int32 { return MsgSvCommandInfoRemove }

// Validate implements Message.
func (*SvCommandInfoRemove) Validate() error { return nil }

// Encode implements Message.
func (m *SvCommandInfoRemove) Encode(w Writer) error {
	header(w, MsgSvCommandInfoRemove)
	w.AddString(m.Name)
	return nil
}

// Decode implements Message.
func (m *SvCommandInfoRemove) Decode(r Reader) error {
	m.Name = getStrict(r)
	c := checker{msg: MsgSvCommandInfoRemove}
	return c.done(r, m)
}

// DeClientEnter (NETMSGTYPE_DE_CLIENTENTER) is recorded in demos only.
type DeClientEnter struct {
	Name     string
	ClientID int32 // -1..63
	Team     int32 // -1..1
}

// ID implements Message.
func (*DeClientEnter) ID() int32 { return MsgDeClientEnter }

// Validate implements Message.
func (m *DeClientEnter) Validate() error {
	c := checker{msg: MsgDeClientEnter}
	c.rng("client_id", m.ClientID, -1, MaxClients-1)
	c.rng("team", m.Team, TeamSpectators, TeamBlue)
	return c.err
}

// Encode implements Message.
func (m *DeClientEnter) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgDeClientEnter)
	w.AddString(m.Name)
	w.AddInt(m.ClientID)
	w.AddInt(m.Team)
	return nil
}

// Decode implements Message.
func (m *DeClientEnter) Decode(r Reader) error {
	m.Name = getStrict(r)
	m.ClientID = r.GetInt()
	m.Team = r.GetInt()
	c := checker{msg: MsgDeClientEnter}
	return c.done(r, m)
}

// DeClientLeave (NETMSGTYPE_DE_CLIENTLEAVE) is recorded in demos only.
type DeClientLeave struct {
	Name     string
	ClientID int32 // -1..63
	Reason   string
}

// ID implements Message.
func (*DeClientLeave) ID() int32 { return MsgDeClientLeave }

// Validate implements Message.
func (m *DeClientLeave) Validate() error {
	c := checker{msg: MsgDeClientLeave}
	c.rng("client_id", m.ClientID, -1, MaxClients-1)
	return c.err
}

// Encode implements Message.
func (m *DeClientLeave) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgDeClientLeave)
	w.AddString(m.Name)
	w.AddInt(m.ClientID)
	w.AddString(m.Reason)
	return nil
}

// Decode implements Message.
func (m *DeClientLeave) Decode(r Reader) error {
	m.Name = getStrict(r)
	m.ClientID = r.GetInt()
	m.Reason = getStrict(r)
	c := checker{msg: MsgDeClientLeave}
	return c.done(r, m)
}

package gamemsg

// ClSay (NETMSGTYPE_CL_SAY) is a chat line from a client.
type ClSay struct {
	Mode    int32 // CHAT_* 0..3
	Target  int32 // -1..63 (whisper target)
	Message string
}

// ID implements Message.
func (*ClSay) ID() int32 { return MsgClSay }

// Validate implements Message.
func (m *ClSay) Validate() error {
	c := checker{msg: MsgClSay}
	c.rng("mode", m.Mode, 0, NumChats-1)
	c.rng("target", m.Target, -1, MaxClients-1)
	return c.err
}

// Encode implements Message.
func (m *ClSay) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgClSay)
	w.AddInt(m.Mode)
	w.AddInt(m.Target)
	w.AddString(m.Message)
	return nil
}

// Decode implements Message.
func (m *ClSay) Decode(r Reader) error {
	m.Mode = r.GetInt()
	m.Target = r.GetInt()
	m.Message = getStrict(r)
	c := checker{msg: MsgClSay}
	return c.done(r, m)
}

// ClSetTeam (NETMSGTYPE_CL_SETTEAM) asks to join a team (-1 spectators).
type ClSetTeam struct{ Team int32 }

// ID implements Message.
func (*ClSetTeam) ID() int32 { return MsgClSetTeam }

// Validate implements Message.
func (m *ClSetTeam) Validate() error {
	c := checker{msg: MsgClSetTeam}
	c.rng("team", m.Team, TeamSpectators, TeamBlue)
	return c.err
}

// Encode implements Message.
func (m *ClSetTeam) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgClSetTeam)
	w.AddInt(m.Team)
	return nil
}

// Decode implements Message.
func (m *ClSetTeam) Decode(r Reader) error {
	m.Team = r.GetInt()
	c := checker{msg: MsgClSetTeam}
	return c.done(r, m)
}

// ClSetSpectatorMode (NETMSGTYPE_CL_SETSPECTATORMODE) picks what a spectator watches.
type ClSetSpectatorMode struct {
	SpecMode    int32 // SPEC_* 0..3
	SpectatorID int32 // -1..63
}

// ID implements Message.
func (*ClSetSpectatorMode) ID() int32 { return MsgClSetSpectatorMode }

// Validate implements Message.
func (m *ClSetSpectatorMode) Validate() error {
	c := checker{msg: MsgClSetSpectatorMode}
	c.rng("spec_mode", m.SpecMode, 0, NumSpecModes-1)
	c.rng("spectator_id", m.SpectatorID, -1, MaxClients-1)
	return c.err
}

// Encode implements Message.
func (m *ClSetSpectatorMode) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgClSetSpectatorMode)
	w.AddInt(m.SpecMode)
	w.AddInt(m.SpectatorID)
	return nil
}

// Decode implements Message.
func (m *ClSetSpectatorMode) Decode(r Reader) error {
	m.SpecMode = r.GetInt()
	m.SpectatorID = r.GetInt()
	c := checker{msg: MsgClSetSpectatorMode}
	return c.done(r, m)
}

// ClStartInfo (NETMSGTYPE_CL_STARTINFO) is the client's name, clan, country
// and skin, sent once after CON_READY.
type ClStartInfo struct {
	Name    string
	Clan    string
	Country int32
	Skin    Skin
}

// ID implements Message.
func (*ClStartInfo) ID() int32 { return MsgClStartInfo }

// Validate implements Message.
func (*ClStartInfo) Validate() error { return nil }

// Encode implements Message.
func (m *ClStartInfo) Encode(w Writer) error {
	header(w, MsgClStartInfo)
	w.AddString(m.Name)
	w.AddString(m.Clan)
	w.AddInt(m.Country)
	m.Skin.encode(w)
	return nil
}

// Decode implements Message.
func (m *ClStartInfo) Decode(r Reader) error {
	c := checker{msg: MsgClStartInfo}
	m.Name = getStrict(r)
	m.Clan = getStrict(r)
	m.Country = r.GetInt()
	m.Skin.decode(r, &c)
	return c.done(r, m)
}

// ClKill (NETMSGTYPE_CL_KILL) asks the server to kill the client's tee.
type ClKill struct{}

// ID implements Message.
func (*ClKill) ID() int32 { return MsgClKill }

// Validate implements Message.
func (*ClKill) Validate() error { return nil }

// Encode implements Message.
func (*ClKill) Encode(w Writer) error { header(w, MsgClKill); return nil }

// Decode implements Message.
func (m *ClKill) Decode(r Reader) error {
	c := checker{msg: MsgClKill}
	return c.done(r, m)
}

// ClReadyChange (NETMSGTYPE_CL_READYCHANGE) toggles the player's ready state.
type ClReadyChange struct{}

// ID implements Message.
func (*ClReadyChange) ID() int32 { return MsgClReadyChange }

// Validate implements Message.
func (*ClReadyChange) Validate() error { return nil }

// Encode implements Message.
func (*ClReadyChange) Encode(w Writer) error { header(w, MsgClReadyChange); return nil }

// Decode implements Message.
func (m *ClReadyChange) Decode(r Reader) error {
	c := checker{msg: MsgClReadyChange}
	return c.done(r, m)
}

// ClEmoticon (NETMSGTYPE_CL_EMOTICON) shows an emoticon (0..15).
type ClEmoticon struct{ Emoticon int32 }

// ID implements Message.
func (*ClEmoticon) ID() int32 { return MsgClEmoticon }

// Validate implements Message.
func (m *ClEmoticon) Validate() error {
	c := checker{msg: MsgClEmoticon}
	c.rng("emoticon", m.Emoticon, 0, NumEmoticons-1)
	return c.err
}

// Encode implements Message.
func (m *ClEmoticon) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgClEmoticon)
	w.AddInt(m.Emoticon)
	return nil
}

// Decode implements Message.
func (m *ClEmoticon) Decode(r Reader) error {
	m.Emoticon = r.GetInt()
	c := checker{msg: MsgClEmoticon}
	return c.done(r, m)
}

// ClSkinChange (NETMSGTYPE_CL_SKINCHANGE) asks to change the client's skin.
type ClSkinChange struct{ Skin Skin }

// ID implements Message.
func (*ClSkinChange) ID() int32 { return MsgClSkinChange }

// Validate implements Message.
func (*ClSkinChange) Validate() error { return nil }

// Encode implements Message.
func (m *ClSkinChange) Encode(w Writer) error {
	header(w, MsgClSkinChange)
	m.Skin.encode(w)
	return nil
}

// Decode implements Message.
func (m *ClSkinChange) Decode(r Reader) error {
	c := checker{msg: MsgClSkinChange}
	m.Skin.decode(r, &c)
	return c.done(r, m)
}

// ClCommand (NETMSGTYPE_CL_COMMAND) runs a chat command.
type ClCommand struct {
	Name      string
	Arguments string
}

// ID implements Message.
func (*ClCommand) ID() int32 { return MsgClCommand }

// Validate implements Message.
func (*ClCommand) Validate() error { return nil }

// Encode implements Message.
func (m *ClCommand) Encode(w Writer) error {
	header(w, MsgClCommand)
	w.AddString(m.Name)
	w.AddString(m.Arguments)
	return nil
}

// Decode implements Message.
func (m *ClCommand) Decode(r Reader) error {
	m.Name = getStrict(r)
	m.Arguments = getStrict(r)
	c := checker{msg: MsgClCommand}
	return c.done(r, m)
}

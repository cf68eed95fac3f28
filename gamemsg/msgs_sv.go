package gamemsg

// done finishes a Decode: a reader error wins, then a range error found while
// reading bool fields, then the message's own Validate.
func (c *checker) done(r Reader, m Message) error {
	if err := c.finish(r); err != nil {
		return err
	}
	return m.Validate()
}

// SvMotd (NETMSGTYPE_SV_MOTD) carries the message of the day.
type SvMotd struct{ Message string }

// ID implements Message.
func (*SvMotd) ID() int32 { return MsgSvMotd }

// Validate implements Message; every value is valid.
func (*SvMotd) Validate() error { return nil }

// Encode implements Message.
func (m *SvMotd) Encode(w Writer) error {
	header(w, MsgSvMotd)
	w.AddString(m.Message)
	return nil
}

// Decode implements Message.
func (m *SvMotd) Decode(r Reader) error {
	m.Message = r.GetString()
	c := checker{msg: MsgSvMotd}
	return c.done(r, m)
}

// SvBroadcast (NETMSGTYPE_SV_BROADCAST) is a centred on-screen message.
type SvBroadcast struct{ Message string }

// ID implements Message.
func (*SvBroadcast) ID() int32 { return MsgSvBroadcast }

// Validate implements Message; every value is valid.
func (*SvBroadcast) Validate() error { return nil }

// Encode implements Message.
func (m *SvBroadcast) Encode(w Writer) error {
	header(w, MsgSvBroadcast)
	w.AddString(m.Message)
	return nil
}

// Decode implements Message.
func (m *SvBroadcast) Decode(r Reader) error {
	m.Message = r.GetString()
	c := checker{msg: MsgSvBroadcast}
	return c.done(r, m)
}

// SvChat (NETMSGTYPE_SV_CHAT) is a chat line. ClientID -1 is the server.
type SvChat struct {
	Mode     int32 // CHAT_* 0..3
	ClientID int32 // -1..63
	TargetID int32 // -1..63
	Message  string
}

// ID implements Message.
func (*SvChat) ID() int32 { return MsgSvChat }

// Validate implements Message.
func (m *SvChat) Validate() error {
	c := checker{msg: MsgSvChat}
	c.rng("mode", m.Mode, 0, NumChats-1)
	c.rng("client_id", m.ClientID, -1, MaxClients-1)
	c.rng("target_id", m.TargetID, -1, MaxClients-1)
	return c.err
}

// Encode implements Message.
func (m *SvChat) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvChat)
	w.AddInt(m.Mode)
	w.AddInt(m.ClientID)
	w.AddInt(m.TargetID)
	w.AddString(m.Message)
	return nil
}

// Decode implements Message.
func (m *SvChat) Decode(r Reader) error {
	m.Mode = r.GetInt()
	m.ClientID = r.GetInt()
	m.TargetID = r.GetInt()
	m.Message = getStrict(r)
	c := checker{msg: MsgSvChat}
	return c.done(r, m)
}

// SvTeam (NETMSGTYPE_SV_TEAM) announces a team change.
type SvTeam struct {
	ClientID     int32 // -1..63
	Team         int32 // -1..1
	Silent       bool
	CooldownTick int32 // tick, >= 0
}

// ID implements Message.
func (*SvTeam) ID() int32 { return MsgSvTeam }

// Validate implements Message.
func (m *SvTeam) Validate() error {
	c := checker{msg: MsgSvTeam}
	c.rng("client_id", m.ClientID, -1, MaxClients-1)
	c.rng("team", m.Team, TeamSpectators, TeamBlue)
	c.rng("cooldown_tick", m.CooldownTick, 0, maxInt32)
	return c.err
}

// Encode implements Message.
func (m *SvTeam) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvTeam)
	w.AddInt(m.ClientID)
	w.AddInt(m.Team)
	w.AddInt(b2i(m.Silent))
	w.AddInt(m.CooldownTick)
	return nil
}

// Decode implements Message.
func (m *SvTeam) Decode(r Reader) error {
	c := checker{msg: MsgSvTeam}
	m.ClientID = r.GetInt()
	m.Team = r.GetInt()
	m.Silent = getBool(r, &c, "silent")
	m.CooldownTick = r.GetInt()
	return c.done(r, m)
}

// SvKillMsg (NETMSGTYPE_SV_KILLMSG) reports a kill. Killer -2..63, weapon
// -3 (game), -2 (self), -1 (world) or 0..5.
type SvKillMsg struct {
	Killer      int32
	Victim      int32
	Weapon      int32
	ModeSpecial int32
}

// ID implements Message.
func (*SvKillMsg) ID() int32 { return MsgSvKillMsg }

// Validate implements Message.
func (m *SvKillMsg) Validate() error {
	c := checker{msg: MsgSvKillMsg}
	c.rng("killer", m.Killer, -2, MaxClients-1)
	c.rng("victim", m.Victim, 0, MaxClients-1)
	c.rng("weapon", m.Weapon, WeaponGame, NumWeapons-1)
	return c.err
}

// Encode implements Message.
func (m *SvKillMsg) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvKillMsg)
	w.AddInt(m.Killer)
	w.AddInt(m.Victim)
	w.AddInt(m.Weapon)
	w.AddInt(m.ModeSpecial)
	return nil
}

// Decode implements Message.
func (m *SvKillMsg) Decode(r Reader) error {
	m.Killer = r.GetInt()
	m.Victim = r.GetInt()
	m.Weapon = r.GetInt()
	m.ModeSpecial = r.GetInt()
	c := checker{msg: MsgSvKillMsg}
	return c.done(r, m)
}

// SvTuneParams (NETMSGTYPE_SV_TUNEPARAMS) carries the 32 tuning values ×100
// (net.md A5.7; DefaultTuneParams holds the defaults).
type SvTuneParams struct{ Params [NumTuneParams]int32 }

// ID implements Message.
func (*SvTuneParams) ID() int32 { return MsgSvTuneParams }

// Validate implements Message; every value is valid.
func (*SvTuneParams) Validate() error { return nil }

// Encode implements Message.
func (m *SvTuneParams) Encode(w Writer) error {
	header(w, MsgSvTuneParams)
	for _, v := range m.Params {
		w.AddInt(v)
	}
	return nil
}

// Decode implements Message.
func (m *SvTuneParams) Decode(r Reader) error {
	for i := range m.Params {
		m.Params[i] = r.GetInt()
	}
	c := checker{msg: MsgSvTuneParams}
	return c.done(r, m)
}

// SvReadyToEnter (NETMSGTYPE_SV_READYTOENTER) lets the client send ENTERGAME.
type SvReadyToEnter struct{}

// ID implements Message.
func (*SvReadyToEnter) ID() int32 { return MsgSvReadyToEnter }

// Validate implements Message.
func (*SvReadyToEnter) Validate() error { return nil }

// Encode implements Message.
func (*SvReadyToEnter) Encode(w Writer) error { header(w, MsgSvReadyToEnter); return nil }

// Decode implements Message.
func (m *SvReadyToEnter) Decode(r Reader) error {
	c := checker{msg: MsgSvReadyToEnter}
	return c.done(r, m)
}

// SvWeaponPickup (NETMSGTYPE_SV_WEAPONPICKUP) tells the client it picked up a weapon.
type SvWeaponPickup struct{ Weapon int32 }

// ID implements Message.
func (*SvWeaponPickup) ID() int32 { return MsgSvWeaponPickup }

// Validate implements Message.
func (m *SvWeaponPickup) Validate() error {
	c := checker{msg: MsgSvWeaponPickup}
	c.rng("weapon", m.Weapon, 0, NumWeapons-1)
	return c.err
}

// Encode implements Message.
func (m *SvWeaponPickup) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvWeaponPickup)
	w.AddInt(m.Weapon)
	return nil
}

// Decode implements Message.
func (m *SvWeaponPickup) Decode(r Reader) error {
	m.Weapon = r.GetInt()
	c := checker{msg: MsgSvWeaponPickup}
	return c.done(r, m)
}

// SvEmoticon (NETMSGTYPE_SV_EMOTICON) shows an emoticon above a player.
type SvEmoticon struct {
	ClientID int32 // 0..63
	Emoticon int32 // 0..15
}

// ID implements Message.
func (*SvEmoticon) ID() int32 { return MsgSvEmoticon }

// Validate implements Message.
func (m *SvEmoticon) Validate() error {
	c := checker{msg: MsgSvEmoticon}
	c.rng("client_id", m.ClientID, 0, MaxClients-1)
	c.rng("emoticon", m.Emoticon, 0, NumEmoticons-1)
	return c.err
}

// Encode implements Message.
func (m *SvEmoticon) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvEmoticon)
	w.AddInt(m.ClientID)
	w.AddInt(m.Emoticon)
	return nil
}

// Decode implements Message.
func (m *SvEmoticon) Decode(r Reader) error {
	m.ClientID = r.GetInt()
	m.Emoticon = r.GetInt()
	c := checker{msg: MsgSvEmoticon}
	return c.done(r, m)
}

// SvServerSettings (NETMSGTYPE_SV_SERVERSETTINGS) describes vote and team settings.
type SvServerSettings struct {
	KickVote    bool
	KickMin     int32 // 0..64
	SpecVote    bool
	TeamLock    bool
	TeamBalance bool
	PlayerSlots int32 // 0..64
}

// ID implements Message.
func (*SvServerSettings) ID() int32 { return MsgSvServerSettings }

// Validate implements Message.
func (m *SvServerSettings) Validate() error {
	c := checker{msg: MsgSvServerSettings}
	c.rng("kick_min", m.KickMin, 0, MaxPlayerSlots)
	c.rng("player_slots", m.PlayerSlots, 0, MaxPlayerSlots)
	return c.err
}

// Encode implements Message.
func (m *SvServerSettings) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvServerSettings)
	w.AddInt(b2i(m.KickVote))
	w.AddInt(m.KickMin)
	w.AddInt(b2i(m.SpecVote))
	w.AddInt(b2i(m.TeamLock))
	w.AddInt(b2i(m.TeamBalance))
	w.AddInt(m.PlayerSlots)
	return nil
}

// Decode implements Message.
func (m *SvServerSettings) Decode(r Reader) error {
	c := checker{msg: MsgSvServerSettings}
	m.KickVote = getBool(r, &c, "kick_vote")
	m.KickMin = r.GetInt()
	m.SpecVote = getBool(r, &c, "spec_vote")
	m.TeamLock = getBool(r, &c, "team_lock")
	m.TeamBalance = getBool(r, &c, "team_balance")
	m.PlayerSlots = r.GetInt()
	return c.done(r, m)
}

// Skin is the 0.7 skin description shared by Sv_ClientInfo, Cl_StartInfo,
// Sv_SkinChange and Cl_SkinChange: part names, per-part custom-color switch,
// per-part colors (packed HSLA), each indexed by SKINPART_*.
type Skin struct {
	PartNames       [NumSkinParts]string
	UseCustomColors [NumSkinParts]bool
	PartColors      [NumSkinParts]int32
}

func (s *Skin) encode(w Writer) {
	for _, n := range s.PartNames {
		w.AddString(n)
	}
	for _, u := range s.UseCustomColors {
		w.AddInt(b2i(u))
	}
	for _, c := range s.PartColors {
		w.AddInt(c)
	}
}

var useCustomNames = [NumSkinParts]string{
	"use_custom_color_body", "use_custom_color_marking", "use_custom_color_decoration",
	"use_custom_color_hands", "use_custom_color_feet", "use_custom_color_eyes",
}

func (s *Skin) decode(r Reader, c *checker) {
	for i := range s.PartNames {
		s.PartNames[i] = getStrict(r)
	}
	for i := range s.UseCustomColors {
		s.UseCustomColors[i] = getBool(r, c, useCustomNames[i])
	}
	for i := range s.PartColors {
		s.PartColors[i] = r.GetInt()
	}
}

// DefaultSkin is the "default" 0.7 skin without custom colors.
var DefaultSkin = Skin{
	PartNames: [NumSkinParts]string{"standard", "", "", "standard", "standard", "standard"},
}

// SvClientInfo (NETMSGTYPE_SV_CLIENTINFO) introduces a client (net.md A5.6).
type SvClientInfo struct {
	ClientID int32 // 0..63
	Local    bool
	Team     int32 // -1..1
	Name     string
	Clan     string
	Country  int32
	Skin     Skin
	Silent   bool
}

// ID implements Message.
func (*SvClientInfo) ID() int32 { return MsgSvClientInfo }

// Validate implements Message.
func (m *SvClientInfo) Validate() error {
	c := checker{msg: MsgSvClientInfo}
	c.rng("client_id", m.ClientID, 0, MaxClients-1)
	c.rng("team", m.Team, TeamSpectators, TeamBlue)
	return c.err
}

// Encode implements Message.
func (m *SvClientInfo) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvClientInfo)
	w.AddInt(m.ClientID)
	w.AddInt(b2i(m.Local))
	w.AddInt(m.Team)
	w.AddString(m.Name)
	w.AddString(m.Clan)
	w.AddInt(m.Country)
	m.Skin.encode(w)
	w.AddInt(b2i(m.Silent))
	return nil
}

// Decode implements Message.
func (m *SvClientInfo) Decode(r Reader) error {
	c := checker{msg: MsgSvClientInfo}
	m.ClientID = r.GetInt()
	m.Local = getBool(r, &c, "local")
	m.Team = r.GetInt()
	m.Name = getStrict(r)
	m.Clan = getStrict(r)
	m.Country = r.GetInt()
	m.Skin.decode(r, &c)
	m.Silent = getBool(r, &c, "silent")
	return c.done(r, m)
}

// SvGameInfo (NETMSGTYPE_SV_GAMEINFO) carries game flags and limits.
type SvGameInfo struct {
	GameFlags    int32 // GAMEFLAG_* bits
	ScoreLimit   int32 // >= 0
	TimeLimit    int32 // >= 0 (minutes)
	MatchNum     int32 // >= 0
	MatchCurrent int32 // >= 0
}

// ID implements Message.
func (*SvGameInfo) ID() int32 { return MsgSvGameInfo }

// Validate implements Message.
func (m *SvGameInfo) Validate() error {
	c := checker{msg: MsgSvGameInfo}
	c.flags("game_flags", m.GameFlags, GameFlagMask)
	c.rng("score_limit", m.ScoreLimit, 0, maxInt32)
	c.rng("time_limit", m.TimeLimit, 0, maxInt32)
	c.rng("match_num", m.MatchNum, 0, maxInt32)
	c.rng("match_current", m.MatchCurrent, 0, maxInt32)
	return c.err
}

// Encode implements Message.
func (m *SvGameInfo) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvGameInfo)
	w.AddInt(m.GameFlags)
	w.AddInt(m.ScoreLimit)
	w.AddInt(m.TimeLimit)
	w.AddInt(m.MatchNum)
	w.AddInt(m.MatchCurrent)
	return nil
}

// Decode implements Message.
func (m *SvGameInfo) Decode(r Reader) error {
	m.GameFlags = r.GetInt()
	m.ScoreLimit = r.GetInt()
	m.TimeLimit = r.GetInt()
	m.MatchNum = r.GetInt()
	m.MatchCurrent = r.GetInt()
	c := checker{msg: MsgSvGameInfo}
	return c.done(r, m)
}

// SvClientDrop (NETMSGTYPE_SV_CLIENTDROP) tells clients that a client left.
type SvClientDrop struct {
	ClientID int32 // 0..63
	Reason   string
	Silent   bool
}

// ID implements Message.
func (*SvClientDrop) ID() int32 { return MsgSvClientDrop }

// Validate implements Message.
func (m *SvClientDrop) Validate() error {
	c := checker{msg: MsgSvClientDrop}
	c.rng("client_id", m.ClientID, 0, MaxClients-1)
	return c.err
}

// Encode implements Message.
func (m *SvClientDrop) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvClientDrop)
	w.AddInt(m.ClientID)
	w.AddString(m.Reason)
	w.AddInt(b2i(m.Silent))
	return nil
}

// Decode implements Message.
func (m *SvClientDrop) Decode(r Reader) error {
	c := checker{msg: MsgSvClientDrop}
	m.ClientID = r.GetInt()
	m.Reason = getStrict(r)
	m.Silent = getBool(r, &c, "silent")
	return c.done(r, m)
}

// SvGameMsg (NETMSGTYPE_SV_GAMEMSG) is a localized game message: a GAMEMSG_*
// id followed by GameMsgParams(GameMsgID) ints (net.md A5.7). Params beyond
// that count are neither written nor read.
type SvGameMsg struct {
	GameMsgID int32
	Params    [3]int32
}

// ID implements Message.
func (*SvGameMsg) ID() int32 { return MsgSvGameMsg }

// Validate implements Message.
func (m *SvGameMsg) Validate() error {
	c := checker{msg: MsgSvGameMsg}
	c.rng("game_msg_id", m.GameMsgID, 0, NumGameMsgs-1)
	return c.err
}

// Encode implements Message.
func (m *SvGameMsg) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvGameMsg)
	w.AddInt(m.GameMsgID)
	for i := 0; i < GameMsgParams(m.GameMsgID); i++ {
		w.AddInt(m.Params[i])
	}
	return nil
}

// Decode implements Message.
func (m *SvGameMsg) Decode(r Reader) error {
	m.GameMsgID = r.GetInt()
	m.Params = [3]int32{}
	c := checker{msg: MsgSvGameMsg}
	c.rng("game_msg_id", m.GameMsgID, 0, NumGameMsgs-1)
	if c.err == nil {
		for i := 0; i < GameMsgParams(m.GameMsgID); i++ {
			m.Params[i] = r.GetInt()
		}
	}
	return c.done(r, m)
}

// SvSkinChange (NETMSGTYPE_SV_SKINCHANGE) announces a new skin of a client.
type SvSkinChange struct {
	ClientID int32 // 0..63
	Skin     Skin
}

// ID implements Message.
func (*SvSkinChange) ID() int32 { return MsgSvSkinChange }

// Validate implements Message.
func (m *SvSkinChange) Validate() error {
	c := checker{msg: MsgSvSkinChange}
	c.rng("client_id", m.ClientID, 0, MaxClients-1)
	return c.err
}

// Encode implements Message.
func (m *SvSkinChange) Encode(w Writer) error {
	if err := m.Validate(); err != nil {
		return err
	}
	header(w, MsgSvSkinChange)
	w.AddInt(m.ClientID)
	m.Skin.encode(w)
	return nil
}

// Decode implements Message.
func (m *SvSkinChange) Decode(r Reader) error {
	c := checker{msg: MsgSvSkinChange}
	m.ClientID = r.GetInt()
	m.Skin.decode(r, &c)
	return c.done(r, m)
}

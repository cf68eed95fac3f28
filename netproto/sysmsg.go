package netproto

// SysMsg is a 0.7 system message codec. Pack writes the fields only (after
// the header written by PackSys); Unpack reads the fields after the header
// (see Unpacker.GetMsgHeader) and reports the first error. Strings are read
// with the default Sanitize mode; byte slices alias the unpacked input.
type SysMsg interface {
	ID() int32
	Pack(p *Packer)
	Unpack(u *Unpacker) error
}

// PackSys writes the system message header for m.ID() and m's fields.
func PackSys(p *Packer, m SysMsg) {
	p.AddMsgHeader(m.ID(), true)
	m.Pack(p)
}

// MsgInfo is NETMSG_INFO (C→S): the client's version, password and version number.
type MsgInfo struct {
	Version       string // "0.7 802f1be60a05665f" for 0.7 clients
	Password      string
	ClientVersion int32 // 0x0705 for 0.7.5
}

// ID returns NetmsgInfo.
func (*MsgInfo) ID() int32 { return NetmsgInfo }

// Pack writes the fields.
func (m *MsgInfo) Pack(p *Packer) {
	p.AddStringLimit(m.Version, MaxVersionLen)
	p.AddStringLimit(m.Password, MaxPasswordLen)
	p.AddInt(m.ClientVersion)
}

// Unpack reads the fields.
func (m *MsgInfo) Unpack(u *Unpacker) error {
	m.Version = u.GetStringMode(SanitizeCC)
	m.Password = u.GetStringMode(SanitizeCC)
	m.ClientVersion = u.GetInt()
	return u.Err()
}

// MsgMapChange is NETMSG_MAP_CHANGE (S→C, spec A3.4).
type MsgMapChange struct {
	Name             string   // no path, no extension
	CRC              uint32   // IEEE CRC-32 of the map file
	Size             int32    // map file size in bytes
	ChunksPerRequest int32    // MAP_DATA messages per REQUEST_MAP_DATA
	ChunkSize        int32    // bytes per MAP_DATA
	SHA256           [32]byte // SHA-256 of the map file
}

// ID returns NetmsgMapChange.
func (*MsgMapChange) ID() int32 { return NetmsgMapChange }

// Pack writes the fields.
func (m *MsgMapChange) Pack(p *Packer) {
	p.AddString(m.Name)
	p.AddInt(int32(m.CRC))
	p.AddInt(m.Size)
	p.AddInt(m.ChunksPerRequest)
	p.AddInt(m.ChunkSize)
	p.AddRaw(m.SHA256[:])
}

// Unpack reads the fields; non-positive sizes or counts are ErrBadMessage.
func (m *MsgMapChange) Unpack(u *Unpacker) error {
	m.Name = u.GetString()
	m.CRC = uint32(u.GetInt())
	m.Size = u.GetInt()
	m.ChunksPerRequest = u.GetInt()
	m.ChunkSize = u.GetInt()
	copy(m.SHA256[:], u.GetRaw(32))
	if err := u.Err(); err != nil {
		return err
	}
	if m.Size <= 0 || m.ChunksPerRequest <= 0 || m.ChunkSize <= 0 {
		return ErrBadMessage
	}
	return nil
}

// MsgMapData is NETMSG_MAP_DATA (S→C): raw map bytes, no header fields in 0.7.
type MsgMapData struct {
	Data []byte // min(chunk size, bytes left); aliases the input when unpacked
}

// ID returns NetmsgMapData.
func (*MsgMapData) ID() int32 { return NetmsgMapData }

// Pack writes the data.
func (m *MsgMapData) Pack(p *Packer) { p.AddRaw(m.Data) }

// Unpack takes the rest of the message as data.
func (m *MsgMapData) Unpack(u *Unpacker) error {
	m.Data = u.Rest()
	return u.Err()
}

// MsgServerInfo is NETMSG_SERVERINFO (S→C): the server info body without
// token and client list (spec A6.3).
type MsgServerInfo struct {
	Version    string // "0.7.5"
	Name       string
	Hostname   string
	MapName    string
	GameType   string
	Flags      int32 // 1 = password, 2 = timescore
	SkillLevel int32 // 0 casual, 1 normal, 2 competitive
	NumPlayers int32
	MaxPlayers int32
	NumClients int32
	MaxClients int32
}

// ID returns NetmsgServerInfo.
func (*MsgServerInfo) ID() int32 { return NetmsgServerInfo }

// Pack writes the fields.
func (m *MsgServerInfo) Pack(p *Packer) {
	p.AddStringLimit(m.Version, MaxInfoVersionLen)
	p.AddStringLimit(m.Name, MaxInfoNameLen)
	p.AddStringLimit(m.Hostname, MaxInfoHostnameLen)
	p.AddStringLimit(m.MapName, MaxInfoMapLen)
	p.AddStringLimit(m.GameType, MaxInfoGameTypeLen)
	p.AddInt(m.Flags)
	p.AddInt(m.SkillLevel)
	p.AddInt(m.NumPlayers)
	p.AddInt(m.MaxPlayers)
	p.AddInt(m.NumClients)
	p.AddInt(m.MaxClients)
}

// Unpack reads the fields and applies the 0.7.5 client's consistency checks
// (ErrBadMessage when counts are negative or out of order).
func (m *MsgServerInfo) Unpack(u *Unpacker) error {
	m.Version = u.GetStringMode(SanitizeCC)
	m.Name = u.GetStringMode(SanitizeCC)
	m.Hostname = u.GetStringMode(SanitizeCC)
	m.MapName = u.GetStringMode(SanitizeCC)
	m.GameType = u.GetStringMode(SanitizeCC)
	m.Flags = u.GetInt()
	m.SkillLevel = u.GetInt()
	m.NumPlayers = u.GetInt()
	m.MaxPlayers = u.GetInt()
	m.NumClients = u.GetInt()
	m.MaxClients = u.GetInt()
	if err := u.Err(); err != nil {
		return err
	}
	if m.NumClients < 0 || m.NumClients > m.MaxClients || m.MaxClients > MaxClients ||
		m.NumPlayers < 0 || m.NumPlayers > m.NumClients || m.MaxPlayers < m.NumPlayers || m.MaxPlayers > m.MaxClients {
		return ErrBadMessage
	}
	return nil
}

// MsgEmpty is any system message without fields: CON_READY, RCON_AUTH_ON,
// RCON_AUTH_OFF, READY, ENTERGAME, REQUEST_MAP_DATA (0.7), PING, PING_REPLY.
type MsgEmpty struct {
	Msg int32 // the message id, e.g. NetmsgReady
}

// ID returns m.Msg.
func (m *MsgEmpty) ID() int32 { return m.Msg }

// Pack writes nothing.
func (*MsgEmpty) Pack(*Packer) {}

// Unpack reads nothing; trailing bytes are ignored as by the reference.
func (*MsgEmpty) Unpack(u *Unpacker) error { return u.Err() }

// MsgSnap is NETMSG_SNAP (S→C): one part of a snapshot delta split into
// NumParts parts (spec A4).
type MsgSnap struct {
	Tick      int32
	DeltaTick int32  // Tick minus the delta base tick, as on the wire
	NumParts  int32  // 1..MaxSnapParts
	Part      int32  // 0..NumParts-1
	CRC       int32  // checksum of the whole snapshot (wrapping sum of its item data)
	Data      []byte // at most MaxSnapPartSize bytes
}

// ID returns NetmsgSnap.
func (*MsgSnap) ID() int32 { return NetmsgSnap }

// Pack writes the fields; the part size is len(Data).
func (m *MsgSnap) Pack(p *Packer) {
	p.AddInt(m.Tick)
	p.AddInt(m.DeltaTick)
	p.AddInt(m.NumParts)
	p.AddInt(m.Part)
	p.AddInt(m.CRC)
	p.AddInt(int32(len(m.Data)))
	p.AddRaw(m.Data)
}

// Unpack reads the fields with the receiver's range checks (ErrBadMessage).
func (m *MsgSnap) Unpack(u *Unpacker) error {
	m.Tick = u.GetInt()
	m.DeltaTick = u.GetInt()
	m.NumParts = u.GetInt()
	m.Part = u.GetInt()
	m.CRC = u.GetInt()
	size := u.GetInt()
	if u.Err() == nil && (m.NumParts < 1 || m.NumParts > MaxSnapParts || m.Part < 0 || m.Part >= m.NumParts ||
		size < 0 || size > MaxSnapPartSize) {
		return ErrBadMessage
	}
	m.Data = u.GetRaw(int(size))
	return u.Err()
}

// MsgSnapEmpty is NETMSG_SNAPEMPTY (S→C): a snapshot equal to its delta base.
type MsgSnapEmpty struct {
	Tick      int32
	DeltaTick int32 // Tick minus the delta base tick
}

// ID returns NetmsgSnapEmpty.
func (*MsgSnapEmpty) ID() int32 { return NetmsgSnapEmpty }

// Pack writes the fields.
func (m *MsgSnapEmpty) Pack(p *Packer) {
	p.AddInt(m.Tick)
	p.AddInt(m.DeltaTick)
}

// Unpack reads the fields.
func (m *MsgSnapEmpty) Unpack(u *Unpacker) error {
	m.Tick = u.GetInt()
	m.DeltaTick = u.GetInt()
	return u.Err()
}

// MsgSnapSingle is NETMSG_SNAPSINGLE (S→C): a whole snapshot delta in one message.
type MsgSnapSingle struct {
	Tick      int32
	DeltaTick int32  // Tick minus the delta base tick
	CRC       int32  // checksum of the snapshot (wrapping sum of its item data)
	Data      []byte // at most MaxSnapPartSize bytes
}

// ID returns NetmsgSnapSingle.
func (*MsgSnapSingle) ID() int32 { return NetmsgSnapSingle }

// Pack writes the fields; the size is len(Data).
func (m *MsgSnapSingle) Pack(p *Packer) {
	p.AddInt(m.Tick)
	p.AddInt(m.DeltaTick)
	p.AddInt(m.CRC)
	p.AddInt(int32(len(m.Data)))
	p.AddRaw(m.Data)
}

// Unpack reads the fields; a size outside 0..MaxSnapPartSize is ErrBadMessage.
func (m *MsgSnapSingle) Unpack(u *Unpacker) error {
	m.Tick = u.GetInt()
	m.DeltaTick = u.GetInt()
	m.CRC = u.GetInt()
	size := u.GetInt()
	if u.Err() == nil && (size < 0 || size > MaxSnapPartSize) {
		return ErrBadMessage
	}
	m.Data = u.GetRaw(int(size))
	return u.Err()
}

// MsgInputTiming is NETMSG_INPUTTIMING (S→C, spec A4.8).
type MsgInputTiming struct {
	IntendedTick int32
	TimeLeft     int32 // milliseconds until that tick starts, may be negative
}

// ID returns NetmsgInputTiming.
func (*MsgInputTiming) ID() int32 { return NetmsgInputTiming }

// Pack writes the fields.
func (m *MsgInputTiming) Pack(p *Packer) {
	p.AddInt(m.IntendedTick)
	p.AddInt(m.TimeLeft)
}

// Unpack reads the fields.
func (m *MsgInputTiming) Unpack(u *Unpacker) error {
	m.IntendedTick = u.GetInt()
	m.TimeLeft = u.GetInt()
	return u.Err()
}

// MsgInput is NETMSG_INPUT (C→S, spec A4.8).
type MsgInput struct {
	AckTick        int32
	IntendedTick   int32
	NumInputs      int                 // ints in Inputs (the wire carries NumInputs*4 bytes)
	Inputs         [MaxInputInts]int32 // the player input (10 ints in 0.7.5)
	PingCorrection int32               // milliseconds; missing reads as 0
}

// ID returns NetmsgInput.
func (*MsgInput) ID() int32 { return NetmsgInput }

// Pack writes the fields.
func (m *MsgInput) Pack(p *Packer) {
	m.packInputs(p)
	p.AddInt(m.PingCorrection)
}

// packInputs writes ack tick, intended tick, size and the input ints
// (NumInputs clamped to 0..MaxInputInts).
func (m *MsgInput) packInputs(p *Packer) {
	n := min(max(m.NumInputs, 0), MaxInputInts)
	p.AddInt(m.AckTick)
	p.AddInt(m.IntendedTick)
	p.AddInt(int32(n * 4))
	for _, v := range m.Inputs[:n] {
		p.AddInt(v)
	}
}

// Unpack reads the fields: a negative size is ErrNegative, more than
// MaxInputInts ints ErrTooLarge.
func (m *MsgInput) Unpack(u *Unpacker) error {
	if err := m.unpackInputs(u); err != nil {
		return err
	}
	m.PingCorrection = u.GetIntOrDefault(0)
	return u.Err()
}

// unpackInputs reads ack tick, intended tick, size and the input ints.
func (m *MsgInput) unpackInputs(u *Unpacker) error {
	m.NumInputs = 0
	m.AckTick = u.GetInt()
	m.IntendedTick = u.GetInt()
	size := u.GetInt()
	if err := u.Err(); err != nil {
		return err
	}
	if size < 0 {
		return ErrNegative
	}
	if size/4 > MaxInputInts {
		return ErrTooLarge
	}
	n := int(size / 4)
	for i := range n {
		m.Inputs[i] = u.GetInt()
	}
	if err := u.Err(); err != nil {
		return err
	}
	m.NumInputs = n
	return nil
}

// MsgRconLine is NETMSG_RCON_LINE (S→C).
type MsgRconLine struct{ Line string }

// ID returns NetmsgRconLine.
func (*MsgRconLine) ID() int32 { return NetmsgRconLine }

// Pack writes the line (at most MaxRconLineLen bytes).
func (m *MsgRconLine) Pack(p *Packer) { p.AddStringLimit(m.Line, MaxRconLineLen) }

// Unpack reads the line.
func (m *MsgRconLine) Unpack(u *Unpacker) error {
	m.Line = u.GetString()
	return u.Err()
}

// MsgRconCmdAdd is NETMSG_RCON_CMD_ADD (S→C).
type MsgRconCmdAdd struct{ Name, Help, Params string }

// ID returns NetmsgRconCmdAdd.
func (*MsgRconCmdAdd) ID() int32 { return NetmsgRconCmdAdd }

// Pack writes the fields.
func (m *MsgRconCmdAdd) Pack(p *Packer) {
	p.AddStringLimit(m.Name, MaxRconCmdNameLen)
	p.AddStringLimit(m.Help, MaxRconCmdHelpLen)
	p.AddStringLimit(m.Params, MaxRconCmdHelpLen)
}

// Unpack reads the fields.
func (m *MsgRconCmdAdd) Unpack(u *Unpacker) error {
	m.Name = u.GetString()
	m.Help = u.GetString()
	m.Params = u.GetString()
	return u.Err()
}

// MsgString is a system message with one string field: RCON_CMD_REM,
// RCON_CMD, RCON_AUTH (password), MAPLIST_ENTRY_ADD, MAPLIST_ENTRY_REM.
type MsgString struct {
	Msg int32  // the message id, e.g. NetmsgRconCmd
	S   string // the command, password or map name
}

// ID returns m.Msg.
func (m *MsgString) ID() int32 { return m.Msg }

// Pack writes the string, truncated to the reference limit for m.Msg.
func (m *MsgString) Pack(p *Packer) {
	limit := MaxRconCmdLen
	if m.Msg == NetmsgRconAuth {
		limit = MaxRconPasswordLen
	}
	p.AddStringLimit(m.S, limit)
}

// Unpack reads the string (RCON_CMD keeps tabs and newlines; all use Sanitize).
func (m *MsgString) Unpack(u *Unpacker) error {
	m.S = u.GetString()
	return u.Err()
}

package netproto

import "crypto/md5"

// 0.6 / DDNet system message codecs (spec B3.1) where the layout differs
// from 0.7. SNAP, SNAPEMPTY, SNAPSINGLE, INPUTTIMING, RCON_LINE and
// RCON_CMD_ADD/REM have the 0.7 layouts: pack their 0.7 structs' bodies
// after a header with the Netmsg6 id (p.AddMsgHeader(Netmsg6SnapSingle, true)).
// ID returns the 0.6 id for the types below.

// DDNetUUID returns DDNet's name-based UUID of an extended message or
// type (spec B3.3): MD5 of the namespace e05ddaaa-c4e6-4cfb-b642-5d48e80c0029
// and the name, made a version-3 UUID.
func DDNetUUID(name string) [16]byte {
	ns := [16]byte{0xe0, 0x5d, 0xda, 0xaa, 0xc4, 0xe6, 0x4c, 0xfb, 0xb6, 0x42, 0x5d, 0x48, 0xe8, 0x0c, 0x00, 0x29}
	u := md5.Sum(append(ns[:], name...))
	u[6] = u[6]&0x0f | 0x30
	u[8] = u[8]&0x3f | 0x80
	return u
}

// Msg6Info is NETMSG_INFO (0.6): no client version number.
type Msg6Info struct {
	Version  string // "0.6 626fce9a778df4d4"
	Password string
}

// ID returns Netmsg6Info.
func (*Msg6Info) ID() int32 { return Netmsg6Info }

// Pack writes the fields.
func (m *Msg6Info) Pack(p *Packer) {
	p.AddStringLimit(m.Version, MaxVersionLen)
	p.AddStringLimit(m.Password, MaxPasswordLen)
}

// Unpack reads the fields.
func (m *Msg6Info) Unpack(u *Unpacker) error {
	m.Version = u.GetStringMode(SanitizeCC)
	m.Password = u.GetStringMode(SanitizeCC)
	return u.Err()
}

// Msg6MapChange is NETMSG_MAP_CHANGE (0.6): name, crc, size only.
type Msg6MapChange struct {
	Name string
	CRC  uint32
	Size int32
}

// ID returns Netmsg6MapChange.
func (*Msg6MapChange) ID() int32 { return Netmsg6MapChange }

// Pack writes the fields.
func (m *Msg6MapChange) Pack(p *Packer) {
	p.AddString(m.Name)
	p.AddInt(int32(m.CRC))
	p.AddInt(m.Size)
}

// Unpack reads the fields; a non-positive size is ErrBadMessage.
func (m *Msg6MapChange) Unpack(u *Unpacker) error {
	m.Name = u.GetString()
	m.CRC = uint32(u.GetInt())
	m.Size = u.GetInt()
	if err := u.Err(); err != nil {
		return err
	}
	if m.Size <= 0 {
		return ErrBadMessage
	}
	return nil
}

// Msg6MapData is NETMSG_MAP_DATA (0.6): one chunk with its index.
type Msg6MapData struct {
	Last  int32 // 1 for the final chunk
	CRC   uint32
	Chunk int32
	Data  []byte // at most MaxChunkSize6 bytes
}

// ID returns Netmsg6MapData.
func (*Msg6MapData) ID() int32 { return Netmsg6MapData }

// Pack writes the fields; the chunk size is len(Data).
func (m *Msg6MapData) Pack(p *Packer) {
	p.AddInt(m.Last)
	p.AddInt(int32(m.CRC))
	p.AddInt(m.Chunk)
	p.AddInt(int32(len(m.Data)))
	p.AddRaw(m.Data)
}

// Unpack reads the fields; a negative chunk index or size is ErrNegative.
func (m *Msg6MapData) Unpack(u *Unpacker) error {
	m.Last = u.GetInt()
	m.CRC = uint32(u.GetInt())
	m.Chunk = u.GetInt()
	size := u.GetInt()
	if u.Err() == nil && (size < 0 || m.Chunk < 0) {
		return ErrNegative
	}
	m.Data = u.GetRaw(int(size))
	return u.Err()
}

// Msg6RequestMapData is NETMSG_REQUEST_MAP_DATA (0.6): the wanted chunk index.
type Msg6RequestMapData struct{ Chunk int32 }

// ID returns Netmsg6RequestMapData.
func (*Msg6RequestMapData) ID() int32 { return Netmsg6RequestMapData }

// Pack writes the field.
func (m *Msg6RequestMapData) Pack(p *Packer) { p.AddInt(m.Chunk) }

// Unpack reads the field; a negative index is ErrNegative.
func (m *Msg6RequestMapData) Unpack(u *Unpacker) error {
	m.Chunk = u.GetInt()
	if u.Err() == nil && m.Chunk < 0 {
		return ErrNegative
	}
	return u.Err()
}

// Msg6Input is NETMSG_INPUT (0.6): as 0.7 without the ping correction.
type Msg6Input struct{ MsgInput }

// ID returns Netmsg6Input.
func (*Msg6Input) ID() int32 { return Netmsg6Input }

// Pack writes the fields.
func (m *Msg6Input) Pack(p *Packer) { m.packInputs(p) }

// Unpack reads the fields (errors as MsgInput.Unpack).
func (m *Msg6Input) Unpack(u *Unpacker) error {
	m.PingCorrection = 0
	return m.unpackInputs(u)
}

// Msg6RconAuthStatus is NETMSG_RCON_AUTH_STATUS (0.6/DDNet).
type Msg6RconAuthStatus struct {
	Authed  int32 // 0 or 1
	CmdList int32 // 1 if a command list follows
}

// ID returns Netmsg6RconAuthStatus.
func (*Msg6RconAuthStatus) ID() int32 { return Netmsg6RconAuthStatus }

// Pack writes the fields.
func (m *Msg6RconAuthStatus) Pack(p *Packer) {
	p.AddInt(m.Authed)
	p.AddInt(m.CmdList)
}

// Unpack reads the fields.
func (m *Msg6RconAuthStatus) Unpack(u *Unpacker) error {
	m.Authed = u.GetInt()
	m.CmdList = u.GetIntOrDefault(0)
	return u.Err()
}

// Msg6RconAuth is NETMSG_RCON_AUTH (0.6/DDNet).
type Msg6RconAuth struct {
	Name        string // ignored by vanilla; DDNet key name if not empty
	Password    string
	SendCmdList int32 // optional, 1 asks for the command list
}

// ID returns Netmsg6RconAuth.
func (*Msg6RconAuth) ID() int32 { return Netmsg6RconAuth }

// Pack writes the fields.
func (m *Msg6RconAuth) Pack(p *Packer) {
	p.AddStringLimit(m.Name, MaxRconPasswordLen)
	p.AddStringLimit(m.Password, MaxRconPasswordLen)
	p.AddInt(m.SendCmdList)
}

// Unpack reads the fields; the trailing int is optional.
func (m *Msg6RconAuth) Unpack(u *Unpacker) error {
	m.Name = u.GetString()
	m.Password = u.GetString()
	m.SendCmdList = u.GetIntOrDefault(0)
	return u.Err()
}

package session

import (
	"twserver/console"
	"twserver/netproto"
)

// Pacing of the lists an rcon login announces, as the reference 0.7.5
// (UpdateClientRconCommands, UpdateClientMapListEntries): each tick serves
// the authenticated clients whose id ≡ tick mod RconListGroups, each with
// at most RconCmdsPerTick RCON_CMD_ADD and RconMapsPerTick
// MAPLIST_ENTRY_ADD, all vital. About 100 commands thus take 7 rounds of 8
// ticks (1.1 s), and one tick adds at most
// MaxClients/RconListGroups × (RconCmdsPerTick + RconMapsPerTick) chunks.
const (
	// RconListGroups is the number of client groups served in turn (MAX_RCONCMD_RATIO).
	RconListGroups = 8
	// RconCmdsPerTick bounds the command descriptions one client gets per tick (MAX_RCONCMD_SEND).
	RconCmdsPerTick = 16
	// RconMapsPerTick bounds the map list entries one client gets per tick (MAX_MAPLISTENTRY_SEND).
	RconMapsPerTick = 32
	// MaxMapListEntries bounds the map names announced to an rcon client.
	MaxMapListEntries = 256
)

// maxMapNameLen bounds a MAPLIST_ENTRY_ADD name, as the reference.
const maxMapNameLen = 128

// Sender sends a packed system message to one slot.
type Sender interface {
	// Send queues msg on the slot's connection with flags.
	Send(msg []byte, flags netproto.SendFlags)
}

// Rcon is one slot's remote console: its login (net.md A3.5) and the
// lists a login announces over the next ticks. The zero value is logged
// out; only the game loop touches it.
type Rcon struct {
	// Authed is set while the slot is logged in.
	Authed     bool
	tries      int      // wrong passwords so far
	noPwWarned bool     // told that rcon has no password
	cmdNext    int      // next index of console.RconCommands() to announce
	maps       []string // the map list to announce (clients 0.7.3 and newer)
	mapNext    int      // next index of maps to announce
}

// Auth applies an RCON_AUTH with pw against the server's password (none:
// rcon is off, said once per connection) and its maxTries
// (console.CheckLogin). A slot already logged in gets nothing. On Granted
// the loop calls Announce.
func (r *Rcon) Auth(password, pw string, maxTries int) console.Login {
	if password == "" {
		if r.noPwWarned {
			return console.Login{}
		}
		r.noPwWarned = true
		return console.Login{Reply: console.LoginNoPassword}
	}
	if r.Authed {
		return console.Login{}
	}
	l := console.CheckLogin(password, pw, r.tries, maxTries)
	r.tries = l.Tries
	r.Authed = l.Granted
	return l
}

// Announce starts the lists of a new login: the commands when cmdList
// (a 0.6 client may not ask for them), and maps (at most
// MaxMapListEntries of them).
func (r *Rcon) Announce(cmdList bool, maps []string) {
	r.cmdNext, r.maps, r.mapNext = len(console.RconCommands()), maps[:min(len(maps), MaxMapListEntries)], 0
	if cmdList {
		r.cmdNext = 0
	}
}

// Logout ends the login; the lists stop.
func (r *Rcon) Logout() { *r = Rcon{noPwWarned: r.noPwWarned} }

// ListTurn reports whether slot id is served the lists at tick.
func ListTurn(id int, tick int32) bool { return int32(id)%RconListGroups == tick%RconListGroups }

// SendLists sends a logged-in slot of dialect d the next part of its
// lists (RconCmdsPerTick commands, RconMapsPerTick maps), packed in p,
// vital, through out.
func (r *Rcon) SendLists(d netproto.Dialect, p *netproto.Packer, out Sender) {
	if !r.Authed {
		return
	}
	cmds := console.RconCommands()
	for end := min(r.cmdNext+RconCmdsPerTick, len(cmds)); r.cmdNext < end; r.cmdNext++ {
		cmd := &cmds[r.cmdNext]
		p.Reset()
		if SysHeader(d, p, netproto.NetmsgRconCmdAdd) {
			p.AddStringLimit(cmd.Name, netproto.MaxRconCmdNameLen)
			p.AddStringLimit(cmd.Help, netproto.MaxRconCmdHelpLen)
			p.AddStringLimit(cmd.Params, netproto.MaxRconCmdHelpLen)
			out.Send(p.Bytes(), netproto.SendVital)
		}
	}
	for end := min(r.mapNext+RconMapsPerTick, len(r.maps)); r.mapNext < end; r.mapNext++ {
		p.Reset()
		if SysHeader(d, p, netproto.NetmsgMaplistEntryAdd) {
			p.AddStringLimit(r.maps[r.mapNext], maxMapNameLen)
			out.Send(p.Bytes(), netproto.SendVital)
		}
	}
}

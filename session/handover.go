package session

import (
	"net/netip"

	"twserver/gamemsg"
	"twserver/netproto"
)

// Handover is a connected slot as it passes to a new process at a live
// upgrade (cmd/twserver, package handover): its connection, how far it
// got and who it is. The world does not pass with it: the new process runs
// a new game on the same map, which the client joins as after a map
// change.
type Handover struct {
	ID      int
	State   State
	Addr    netip.AddrPort
	Conn    netproto.ConnHandover
	Version int32
	// DDNetVersion is a DDNet client's version (clientver@ddnet.tw).
	DDNetVersion int32
	Name, Clan   string
	Country      int32
	Skin         gamemsg.Skin
	// Rcon: the slot is logged in to rcon.
	Rcon bool
}

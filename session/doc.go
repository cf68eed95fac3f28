// Package session owns the system layer of a connected slot, after the
// edge has accepted it: the states of the way into the game (State), the
// table per dialect of the system messages a slot may send in each state
// and what they carry (Dispatcher: INFO, the map requests, READY,
// ENTERGAME, INPUT, the rcon messages, PING and DDNet's UUID messages,
// which it answers), the header of a system message in each dialect
// (SysHeader), the version a client must send (Refusal), a slot's stored
// inputs (Inputs), its rcon login and the lists it announces (Rcon), the
// rules of names (Name, StartName, Clan, UniqueName) and DDNet's rejoin
// from a connected address (Rejoin6).
//
// It decodes and checks, then calls the loop through Handler; it never
// touches the world, a socket or a clock. Only the game loop goroutine
// calls it, for the slots it owns; it does not import server/.
package session

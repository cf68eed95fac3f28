package console

import (
	"fmt"
	"net/netip"
	"time"
	"unicode/utf8"

	"twserver/world"
)

// The event lines of the 0.7.5 server's console (ops-facts section 2) that
// existing tools parse: joins, drops, chat, rcon, kills, flags, pickups.
// Events formats them from plain values the game loop hands it; nothing is
// formatted unless a sink wants the line's level, so a server without econ
// does no work here, and with one a line costs one string (no work per
// tick).

// Chat modes of an event line (the protocol's CHAT_ALL and CHAT_TEAM).
const (
	// ChatAll is a chat line to everyone.
	ChatAll = 1
	// ChatTeam is a chat line to the sender's team.
	ChatTeam = 2
)

// EventWorld is what Events asks the game loop about a client while it
// formats a world event: the client's name while it holds a slot (else
// "") and its team.
type EventWorld interface {
	// SlotName is the name of the client in slot cid, "" when the slot is empty.
	SlotName(cid int) string
	// Team is the team of client cid in the world.
	Team(cid int) int
}

// Events prints the event lines to its Sinks. It is owned by the game
// loop: install the sinks (Sinks.Add) and call Init before the loop runs,
// the other methods from the loop only.
type Events struct {
	// Sinks receive the lines.
	Sinks Sinks
	names []string // name of each slot's last client, for lines printed after it left
}

// Init sizes the memory of the names of clients that left to slots.
func (e *Events) Init(slots int) {
	if e.names == nil {
		e.names = make([]string, slots)
	}
}

// On reports whether some sink wants lines of level.
func (e *Events) On(level int) bool { return e.Sinks.On(level) }

// Print hands one line to the sinks that want its level. size is the
// reference's buffer for the text (longer texts are cut to size-1 bytes
// as its str_format does, never inside a UTF-8 sequence); 0 = no cut.
func (e *Events) Print(level int, system string, size int, text string) {
	if !e.On(level) {
		return
	}
	if size > 0 && len(text) > size-1 {
		n := size - 1
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	e.Sinks.Print(level, system, text)
}

// Addr is an address as the reference prints it (IPv4 without the IPv6
// mapping, with the port).
func Addr(a netip.AddrPort) string {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()).String()
}

// name is the name of client cid for a line: its current name, or the
// name it had when it left (for kill lines drained after a drop).
func (e *Events) name(w EventWorld, cid int) string {
	if cid < 0 || cid >= len(e.names) {
		return ""
	}
	if n := w.SlotName(cid); n != "" {
		return n
	}
	return e.names[cid]
}

// Ready prints NETMSG_READY (server.cpp "player is ready").
func (e *Events) Ready(cid int, addr netip.AddrPort) {
	if e.On(LevelAddInfo) {
		e.Print(LevelAddInfo, "server", 256, fmt.Sprintf("player is ready. ClientID=%d addr=%s", cid, Addr(addr)))
	}
}

// Enter prints ENTERGAME and the start team (OnPlayerConnect).
func (e *Events) Enter(cid int, addr netip.AddrPort, name string, team int) {
	if !e.On(LevelStandard) {
		return
	}
	e.Print(LevelStandard, "server", 256, fmt.Sprintf("player has entered the game. ClientID=%d addr=%s", cid, Addr(addr)))
	if e.On(LevelDebug) {
		e.Print(LevelDebug, "game", 128, fmt.Sprintf("team_join player='%d:%s' team=%d", cid, name, team))
	}
}

// Drop prints a dropped client (DelClientCallback) and, for a client that
// was in game, its leaving (OnPlayerDisconnect), and remembers its name
// for the lines printed after it left. The kill of its character is
// drained with the world's events after the next tick, so that line
// follows these two (the reference prints it between them).
func (e *Events) Drop(cid int, addr netip.AddrPort, name, reason string, wasIngame bool) {
	if !e.On(LevelStandard) {
		return
	}
	e.names[cid] = name
	e.Print(LevelStandard, "server", 256, fmt.Sprintf("client dropped. cid=%d addr=%s reason='%s'", cid, Addr(addr), reason))
	if wasIngame {
		e.Print(LevelStandard, "game", 128, fmt.Sprintf("leave player='%d:%s'", cid, name))
	}
}

// Bot prints a bot entering the game (twserver's own line; a bot has no
// address) and remembers its name for the game lines about it.
func (e *Events) Bot(cid int, name, skill string, team int) {
	if !e.On(LevelStandard) {
		return
	}
	if cid >= 0 && cid < len(e.names) {
		e.names[cid] = name
	}
	e.Print(LevelStandard, "server", 256, fmt.Sprintf("bot has entered the game. ClientID=%d name='%s' skill=%s", cid, name, skill))
	if e.On(LevelDebug) {
		e.Print(LevelDebug, "game", 128, fmt.Sprintf("team_join player='%d:%s' team=%d", cid, name, team))
	}
}

// BotLeave prints a bot leaving the game (twserver's own line).
func (e *Events) BotLeave(cid int, name, reason string) {
	if e.On(LevelStandard) {
		e.Print(LevelStandard, "server", 256, fmt.Sprintf("bot left the game. ClientID=%d name='%s' reason='%s'", cid, name, reason))
		e.Print(LevelStandard, "game", 128, fmt.Sprintf("leave player='%d:%s'", cid, name))
	}
}

// Chat prints a chat line (SendChat): mode ChatAll or ChatTeam; whispers
// are not printed.
func (e *Events) Chat(cid int, name string, mode int32, team int, text string) {
	if !e.On(LevelAddInfo) {
		return
	}
	if mode == ChatTeam {
		e.Print(LevelAddInfo, "teamchat", 256, fmt.Sprintf("%d:%d:%d:%s: %s", mode, team, cid, name, text))
		return
	}
	e.Print(LevelAddInfo, "chat", 256, fmt.Sprintf("%d:%d:%s: %s", mode, cid, name, text))
}

// ServerChat prints a server chat line (SendChat with client id -1).
func (e *Events) ServerChat(text string) {
	if e.On(LevelAddInfo) {
		e.Print(LevelAddInfo, "chat", 256, "*** "+text)
	}
}

// Rcon prints an rcon command of an authenticated client.
func (e *Events) Rcon(cid int, cmd string) {
	if e.On(LevelAddInfo) {
		e.Print(LevelAddInfo, "server", 256, fmt.Sprintf("ClientID=%d rcon='%s'", cid, cmd))
	}
}

// RconAuthed prints a successful rcon login.
func (e *Events) RconAuthed(cid int) {
	if e.On(LevelStandard) {
		e.Print(LevelStandard, "server", 256, fmt.Sprintf("ClientID=%d authed (admin)", cid))
	}
}

// World prints the game lines of a world event (all LevelDebug): kills,
// team changes, flag grabs, returns and captures, pickups. tick is the
// length of a tick (a capture's time is printed in seconds).
func (e *Events) World(w EventWorld, ev world.Event, tick time.Duration) {
	if !e.On(LevelDebug) {
		return
	}
	a := ev.Args
	switch ev.Kind {
	case world.EvKillMsg:
		killer, victim := int(a[0]), int(a[1])
		vic := fmt.Sprintf("victim='%d:%d:%s' weapon=%d special=%d", victim, a[4], e.name(w, victim), a[2], a[3])
		if killer < 0 {
			e.Print(LevelDebug, "game", 256, fmt.Sprintf("kill killer='%d:%d:' %s", killer, -1-killer, vic))
			return
		}
		team := int(a[4]) // a suicide: the team the victim died in
		if killer != victim {
			team = w.Team(killer)
		}
		e.Print(LevelDebug, "game", 256, fmt.Sprintf("kill killer='%d:%d:%s' %s", killer, team, e.name(w, killer), vic))
	case world.EvTeam:
		e.Print(LevelDebug, "game", 128, fmt.Sprintf("team_join player='%d:%s' team=%d->%d", a[0], e.name(w, int(a[0])), a[4], a[1]))
	case world.EvFlagGrab:
		e.Print(LevelDebug, "game", 256, fmt.Sprintf("flag_grab player='%d:%s' team=%d", a[0], e.name(w, int(a[0])), a[1]))
	case world.EvFlagReturn:
		if a[0] < 0 {
			e.Print(LevelDebug, "game", 0, "flag_return")
			return
		}
		e.Print(LevelDebug, "game", 256, fmt.Sprintf("flag_return player='%d:%s' team=%d", a[0], e.name(w, int(a[0])), a[1]))
	case world.EvGameMsg:
		if a[0] == world.GameMsgCTFCapture {
			cid := int(a[2])
			secs := float64(float32(a[3]) / float32(time.Second/tick)) // ticks to seconds, in float as the reference
			e.Print(LevelDebug, "game", 64, fmt.Sprintf("flag_capture player='%d:%s' team=%d time=%.2f", cid, e.name(w, cid), w.Team(cid), secs))
		}
	case world.EvPickup:
		e.Print(LevelDebug, "game", 256, fmt.Sprintf("pickup player='%d:%s' item=%d", a[0], e.name(w, int(a[0])), a[1]))
	}
}

// Package trans6 is the contract between the server and the 0.6 game
// layer: the Translator interface the server calls for every 0.6 client
// (snapshots, server→client game messages, client→server game messages,
// inputs), the per-game facts it passes (Game, Player), and Minimal, a
// small translation that gets a DDNet 16.4 client into the game.
//
// Minimal is a stand-in until the full translation package (skins through
// the standard-skin table, game messages rendered as chat lines, DDNet
// whispers, damage fan-out angles as the reference, …) is merged; that
// package implements Translator and replaces Minimal in server.New.
package trans6

import (
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
)

// Player is what the 0.6 layer needs to know about one slot that the 0.7
// snapshot does not carry (0.7 sends it in messages).
type Player struct {
	InGame  bool // the slot's client entered the game
	Name    string
	Clan    string
	Country int32
	Skin    gamemsg.Skin // the 0.7 six-part skin
	Team    int32        // -1 spectators, 0 red (or the only team), 1 blue
}

// Game is the per-snapshot game state the 0.6 layer needs beyond the 0.7
// snapshot: the 0.7 Sv_GameInfo fields and every slot's Player.
type Game struct {
	Tick       int32
	GameFlags  int32 // 0.7 GAMEFLAG_* (teams 1, flags 2, ...)
	ScoreLimit int32
	TimeLimit  int32
	MatchNum   int32
	MatchCur   int32
	Players    []Player // indexed by client id
}

// Translator is the 0.6 game layer of one game. Methods are called by the
// game loop only; an implementation may keep scratch state.
type Translator interface {
	// Snapshot adds to b the 0.6 snapshot for client cid translated from
	// the world's 0.7 snapshot src.
	Snapshot(b *snap.Builder, src *snap.Snapshot, g *Game, cid int) error
	// ServerMessage packs into p (header included) the 0.6 form of a 0.7
	// server game message for client cid; false when it has none (it is
	// then not sent to that client).
	ServerMessage(p *netproto.Packer, m gamemsg.Message, g *Game, cid int) bool
	// ClientMessage decodes a 0.6 client game message (id, body after the
	// header) into the 0.7 message it stands for; nil without error for
	// messages that are ignored.
	ClientMessage(id int32, body []byte) (gamemsg.Message, error)
	// Input rewrites a 0.6 PlayerInput (10 ints) into the 0.7 layout in place.
	Input(data []int32)
}

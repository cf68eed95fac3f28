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
	"twserver/snap"
)

// Player is what the 0.6 layer needs to know about one player that the
// 0.7 snapshot does not carry (0.7 sends it in messages).
type Player struct {
	Name    string
	Clan    string
	Country int32
	Team    int32        // -1 spectators, 0 red (or the only team), 1 blue
	Skin    gamemsg.Skin // the 0.7 six-part skin
}

// Out is the 0.6 form of one server game message: zero or more messages
// (header included) to send vital, in order; valid until the next call.
type Out interface {
	Len() int
	Msg(i int) []byte
}

// Translator is the 0.6 game layer of one game. Methods are called by the
// game loop only, with client ids 0..netproto.MaxClients-1; an
// implementation keeps the per-game and per-client state it needs.
type Translator interface {
	// Connect starts the state of 0.6 client cid (DDNet's dialect, or
	// vanilla 0.6) when its connection starts.
	Connect(cid int, ddnet bool)
	// SetPlayer records slot cid (a player with p when inGame, else none);
	// the server calls it for every slot before each round of snapshots.
	SetPlayer(cid int, p Player, inGame bool)
	// Snapshot adds to b the 0.6 snapshot of tick for client cid,
	// translated from src, the world's 0.7 snapshot for cid.
	Snapshot(b *snap.Builder, src *snap.Snapshot, cid int, tick int32) error
	// ServerMessage translates the 0.7 server game message m for client cid.
	ServerMessage(m gamemsg.Message, cid int) (Out, error)
	// ClientMessage decodes a 0.6 client game message (id, body after the
	// header) of client cid into the 0.7 message it stands for; (nil, nil)
	// for messages with nothing to do.
	ClientMessage(cid int, id int32, body []byte) (gamemsg.Message, error)
	// Input rewrites a 0.6 PlayerInput (10 ints) into the 0.7 layout in place.
	Input(data []int32)
}

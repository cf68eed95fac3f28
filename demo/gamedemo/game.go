package gamedemo

import (
	"slices"
	"twserver/demo"
	"twserver/dialect6"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
	"twserver/world"
)

// Game records a running world into a 0.7 demo: the server's own demo
// (record.demo) and the demos made from teehistorian files (teehist/replay)
// go through it, so both hold the same snapshots and messages.
//
// Free view (View -1) is the server demo: the snapshot as seen by no one
// (World.Snap(-1): every character, De_ClientInfo and De_GameInfo). A
// player's view (View = client id) is what that player's client received,
// with De_ClientInfo and De_GameInfo added as the 0.7.5 client adds them
// to the demos it records. Messages are the game messages sent to everybody
// (and, for a player's view, to that player), without the ones the
// reference never records (NoRecord). A Game is owned by one goroutine.
type Game struct {
	// Enc receives the chunks; the caller takes its bytes (Bytes, Clear).
	Enc *demo.Encoder
	// View is -1 for free view or the client id whose view is recorded.
	View    int
	builder snap.Builder
	cur     snap.Snapshot
	pk      netproto.Packer
	entered []int
	six     *six // the 0.6 translation of a DDNet demo (NewGame6), nil for 0.7
}

// six is the state of a 0.6 demo: the players and game info, the viewer's
// peer and the translator's scratch.
type six struct {
	infos dialect6.Infos
	peer  dialect6.Peer
	tr    dialect6.Translator
	out   dialect6.Out
	b     snap.Builder
}

// NewGame records into enc from the view of client view (-1: free view).
func NewGame(enc *demo.Encoder, view int) *Game {
	g := &Game{Enc: enc, View: view}
	g.builder.Sizes = snap.Sizes7
	return g
}

// NewGame6 records a DDNet (0.6) demo into enc (demo.NewEncoder6): the
// same snapshots and messages, translated by dialect6 as the server
// translates them for a DDNet client (for free view, a DDNet client that is
// no player).
func NewGame6(enc *demo.Encoder, view int) *Game {
	g := NewGame(enc, view)
	g.six = &six{}
	g.six.peer.Reset(view, true)
	g.six.b.Sizes = snap.Sizes6
	return g
}

// Snapshot records the snapshot of w's current tick (a snapshot tick), then
// De_ClientEnter for the players that entered since the previous one. Items
// the builder refuses are left out, as for clients; the error is the
// encoder's. A player's view without that player in the game records
// nothing.
func (g *Game) Snapshot(w *world.World) error {
	g.builder.Reset()
	if g.View >= 0 && !w.InGame(g.View) {
		g.entered = g.entered[:0]
		return nil
	}
	_ = w.Snap(g.View, &g.builder)
	switch {
	case g.six != nil:
		g.six.translate(w, &g.builder, g.View)
		g.six.b.Finish(&g.cur)
	case g.View >= 0:
		_ = w.SnapDemoInfo(g.View, &g.builder)
		g.builder.Finish(&g.cur)
	default:
		g.builder.Finish(&g.cur)
	}
	err := g.Enc.Snapshot(w.CurrentTick(), &g.cur)
	for _, cid := range g.entered {
		if info, ok := w.Info(cid); ok {
			g.Message(&gamemsg.DeClientEnter{Name: info.Name, ClientID: int32(cid), Team: int32(w.Team(cid))})
		}
	}
	g.entered = g.entered[:0]
	return err
}

// Current returns the snapshot recorded last (valid until the next Snapshot).
func (g *Game) Current() *snap.Snapshot { return &g.cur }

// NoRecord reports the messages the reference never records
// (MSGFLAG_NORECORD): the demo snapshots carry that information instead.
func NoRecord(id int32) bool {
	switch id {
	case gamemsg.MsgSvClientInfo, gamemsg.MsgSvGameInfo, gamemsg.MsgSvSkinChange, gamemsg.MsgSvClientDrop:
		return true
	}
	return false
}

// translate builds the 0.6 snapshot of src (the world's 0.7 snapshot for
// viewer) into x.b, with the players and game info of w.
func (x *six) translate(w *world.World, src *snap.Builder, viewer int) {
	for cid := range world.MaxClients {
		info, ok := w.Info(cid)
		if !ok || !w.InGame(cid) {
			x.infos.Remove(cid)
			continue
		}
		_ = x.infos.SetPlayer(cid, dialect6.Player{Name: info.Name, Clan: info.Clan, Country: info.Country,
			Team: int32(w.Team(cid)), Skin: gamemsg.Skin{PartNames: info.SkinPartNames,
				UseCustomColors: info.UseCustomColors, PartColors: info.SkinPartColors}})
	}
	gi := w.GameInfo()
	x.infos.GameInfo = gamemsg.SvGameInfo{GameFlags: gi[0], ScoreLimit: gi[1], TimeLimit: gi[2], MatchNum: gi[3], MatchCurrent: gi[4]}
	x.b.Reset()
	_ = x.tr.Snap(&x.b, src, viewer, w.CurrentTick(), &x.infos) // items left out are left out for clients too
}

// message records the 0.6 form of a 0.7 message: the demo-only entry and
// leave messages become the chat lines a 0.6 server sends.
func (x *six) message(enc *demo.Encoder, m gamemsg.Message) {
	switch d := m.(type) {
	case *gamemsg.DeClientEnter:
		// Local: every entry is shown, the viewer's own included
		m = &gamemsg.SvClientInfo{ClientID: d.ClientID, Team: d.Team, Name: d.Name, Local: true}
	case *gamemsg.DeClientLeave:
		m = &gamemsg.SvClientDrop{ClientID: d.ClientID, Reason: d.Reason}
	}
	if dialect6.EncodeServer(&x.out, m, &x.peer, &x.infos) != nil {
		return
	}
	for i := range x.out.Len() {
		_ = enc.Message(x.out.Msg(i))
	}
}

// Message records a game message sent to everybody (or to the viewed
// player); messages of NoRecord are left out.
func (g *Game) Message(m gamemsg.Message) {
	if NoRecord(m.ID()) {
		return
	}
	if g.six != nil {
		g.six.message(g.Enc, m)
		return
	}
	g.pk.Reset()
	if gamemsg.Encode(&g.pk, m) != nil || g.pk.Err() != nil {
		return
	}
	_ = g.Enc.Message(g.pk.Bytes())
}

// Event records the message a world event sends (EventMessage) when it
// goes to everybody or to the viewed player.
func (g *Game) Event(e world.Event) {
	if e.To != -1 && (g.View < 0 || e.To != g.View) {
		return
	}
	if m := EventMessage(e); m != nil {
		g.Message(m)
	}
}

// Enter notes that client cid entered the game: De_ClientEnter follows the
// next snapshot, once per client id (a client that left and came back
// before it, as before a clip's first tick, is one player in it; at most
// world.MaxClients are kept).
func (g *Game) Enter(cid int) {
	if len(g.entered) < world.MaxClients && !slices.Contains(g.entered, cid) {
		g.entered = append(g.entered, cid)
	}
}

// Leave records De_ClientLeave for an in-game client leaving.
func (g *Game) Leave(cid int, name, reason string) {
	g.Message(&gamemsg.DeClientLeave{Name: name, ClientID: int32(cid), Reason: reason})
}

// EventMessage returns the game message the server sends for a world event
// (nil for events that send none: map cycle, kick).
func EventMessage(e world.Event) gamemsg.Message {
	a := &e.Args
	switch e.Kind {
	case world.EvKillMsg:
		return &gamemsg.SvKillMsg{Killer: a[0], Victim: a[1], Weapon: a[2], ModeSpecial: a[3]}
	case world.EvTeam:
		return &gamemsg.SvTeam{ClientID: a[0], Team: a[1], Silent: a[2] != 0, CooldownTick: a[3]}
	case world.EvGameMsg:
		return &gamemsg.SvGameMsg{GameMsgID: a[0], Params: [3]int32{a[1], a[2], a[3]}}
	case world.EvWeaponPickup:
		return &gamemsg.SvWeaponPickup{Weapon: a[0]}
	case world.EvGameInfo:
		return &gamemsg.SvGameInfo{GameFlags: a[0], ScoreLimit: a[1], TimeLimit: a[2], MatchNum: a[3], MatchCurrent: a[4]}
	}
	return nil
}

// FromWorld reports the messages the server sends for world events (the
// ones EventMessage makes): a replay of the world makes them again, so a
// teehistorian file need not hold them.
func FromWorld(id int32) bool {
	switch id {
	case gamemsg.MsgSvKillMsg, gamemsg.MsgSvTeam, gamemsg.MsgSvGameMsg, gamemsg.MsgSvWeaponPickup, gamemsg.MsgSvGameInfo:
		return true
	}
	return false
}

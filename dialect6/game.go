package dialect6

import (
	"twserver/gamemsg"
	"twserver/snap"
)

// Game bundles the translation state of one game for a server loop: the
// Infos, a Peer per client, and the scratch of the translator, decoder and
// output. Its methods are the whole contract a server needs; they must be
// called from one goroutine (the loop), with client ids 0..MaxClients-1,
// except SnapshotTo, which goroutines with a SnapWorker each may run at
// once for distinct clients while the loop waits for them.
type Game struct {
	// Infos is the players and game info shared by all 0.6 clients.
	Infos Infos

	peers [MaxClients]Peer
	own   [MaxClients]ownSkin // the 0.6 skin each 0.6 client sent last
	// ownChanges counts the changes of own (PlayerChanges).
	ownChanges [MaxClients]uint32
	// told is what SetPlayerVersion last set of each slot.
	told [MaxClients]toldPlayer
	tr   Translator
	dec  Decoder
	out  Out
}

// ownSkin is a 0.6 client's own skin and its 0.7 form.
type ownSkin struct {
	ok bool
	s  Skin6
	k  gamemsg.Skin
}

// toldPlayer is what SetPlayerVersion last set of a slot.
type toldPlayer struct {
	ok      bool   // anything set
	in      bool   // in the game
	team    int32  // its team then
	version uint32 // the caller's version of the player's info then
	changes uint32 // PlayerChanges right after
}

// PlayerCurrent reports whether SetPlayerVersion(cid, p, inGame, version)
// with p.Team = team would change nothing: its last call for cid set the
// same inGame, team and version (the caller's counter of changes to the
// slot's name, clan, country and skin, which also moves when the slot
// changes hands), and nothing changed the entry since (PlayerChanges). A
// loop that sets every slot before every round of snapshots skips those.
func (g *Game) PlayerCurrent(cid int, inGame bool, team int32, version uint32) bool {
	if cid < 0 || cid >= MaxClients {
		return true
	}
	t := &g.told[cid]
	return t.ok && t.in == inGame && t.team == team && t.version == version && t.changes == g.PlayerChanges(cid)
}

// SetPlayerVersion is SetPlayer noting version for PlayerCurrent.
func (g *Game) SetPlayerVersion(cid int, p Player, inGame bool, version uint32) {
	if cid < 0 || cid >= MaxClients {
		return
	}
	g.SetPlayer(cid, p, inGame)
	g.told[cid] = toldPlayer{ok: true, in: inGame, team: p.Team, version: version, changes: g.PlayerChanges(cid)}
}

// Connect starts the state of 0.6 client cid (a DDNet client, or vanilla
// with ids 0..15 only) when its connection starts.
func (g *Game) Connect(cid int, ddnet bool) {
	if cid < 0 || cid >= MaxClients {
		return
	}
	g.peers[cid].Reset(cid, ddnet)
	g.own[cid] = ownSkin{}
	g.ownChanges[cid]++
}

// Peer returns the state of client cid (nil for a bad id).
func (g *Game) Peer(cid int) *Peer {
	if cid < 0 || cid >= MaxClients {
		return nil
	}
	return &g.peers[cid]
}

// SetPlayer records slot cid: a player with info p when inGame, else no
// player. Cheap when nothing changed: call it for every slot before every
// round of snapshots (or only where PlayerChanges or p moved). A 0.6 client whose p.Skin is the 0.7 form of its own
// 0.6 skin is shown to 0.6 clients with that skin exactly.
func (g *Game) SetPlayer(cid int, p Player, inGame bool) {
	if cid < 0 || cid >= MaxClients {
		return
	}
	if !inGame {
		g.Infos.Remove(cid)
		return
	}
	if o := &g.own[cid]; o.ok && o.k == p.Skin {
		p.Skin6, p.HasSkin6 = o.s, true
	}
	g.Infos.SetPlayer(cid, p) //nolint:errcheck // id checked above
}

// PlayerChanges returns a counter that moves whenever what SetPlayer(cid, …)
// finds may have changed: client cid's entry in Infos (Infos.Changes) or
// its own 0.6 skin (Connect, ClientMessage). A server may skip SetPlayer
// for a slot whose arguments and PlayerChanges are those right after its
// last SetPlayer for it: the call would change nothing. 0 for a bad id.
func (g *Game) PlayerChanges(cid int) uint32 {
	if cid < 0 || cid >= MaxClients {
		return 0
	}
	return g.Infos.Changes(cid) + g.ownChanges[cid]
}

// Snapshot adds to b the 0.6 snapshot of tick for 0.6 client cid,
// translated from src, the world's 0.7 snapshot for cid (Translator.SnapPeer).
func (g *Game) Snapshot(b *snap.Builder, src Items, cid int, tick int32) error {
	if cid < 0 || cid >= MaxClients {
		return ErrClientID
	}
	return g.tr.SnapPeer(b, src, &g.peers[cid], tick, &g.Infos)
}

// SnapWorker is the scratch of one goroutine translating a Game's 0.6
// snapshots with SnapshotTo: the translator and the 0.6 snapshot being
// built. The zero value is ready; its buffers grow to the largest snapshot
// and are reused, so steady-state translation allocates nothing.
type SnapWorker struct {
	tr Translator
	b  snap.Builder
}

// SnapshotTo translates src, the world's 0.7 snapshot of tick for 0.6
// client cid (as Snapshot does), with w's scratch and finishes the 0.6
// snapshot into dst, with the 0.6 static sizes. src is read as it was
// built, unfinished: the world adds its items in key order but for the
// projectiles and lasers at the start, whose 0.6 items the 0.6 builder then
// sorts, so a Finish of src would only copy and checksum a snapshot nobody
// is sent. dst is finished even when an error is returned (the items that
// translated). Several
// goroutines, each with its own SnapWorker, may call it at once for
// distinct clients while nothing changes g: it reads g.Infos and changes
// only client cid's id map (Connect, SetPlayer, ServerMessage,
// ClientMessage and changes of Infos belong between rounds of snapshots).
func (g *Game) SnapshotTo(w *SnapWorker, dst *snap.Snapshot, src *snap.Builder, cid int, tick int32) error {
	w.b.Sizes = snap.Sizes6
	w.b.Reset()
	err := ErrClientID
	if cid >= 0 && cid < MaxClients {
		err = w.tr.SnapPeer(&w.b, src, &g.peers[cid], tick, &g.Infos)
	}
	w.b.Finish(dst)
	return err
}

// ServerMessage translates the 0.7 message m for 0.6 client cid
// (EncodeServer) after noting what it says about players and the game
// (Infos.Observe). Send every o.Msg(i) vital, in order; the Out is valid
// until the next call.
func (g *Game) ServerMessage(m gamemsg.Message, cid int) (*Out, error) {
	g.out.Reset()
	if cid < 0 || cid >= MaxClients {
		return &g.out, ErrClientID
	}
	g.Infos.Observe(m)
	return &g.out, EncodeServer(&g.out, m, &g.peers[cid], &g.Infos)
}

// ClientMessage decodes a game message of 0.6 client cid (DecodePeer); the
// skin of a Cl_StartInfo or Cl_ChangeInfo is kept as the client's own.
// (nil, nil) is a valid message with nothing to do.
func (g *Game) ClientMessage(cid int, id int32, body []byte) (gamemsg.Message, error) {
	if cid < 0 || cid >= MaxClients {
		return nil, ErrClientID
	}
	m, err := g.dec.DecodePeer(&g.peers[cid], id, body, &g.Infos)
	if err == nil && (id == MsgClStartInfo || id == MsgClChangeInfo) {
		g.own[cid] = ownSkin{ok: true, s: g.dec.Skin6, k: Skin7From6(g.dec.Skin6)}
		g.ownChanges[cid]++
	}
	return m, err
}

// Input rewrites a 0.6 client's PlayerInput into the 0.7 form (InputTo7).
func (g *Game) Input(data []int32) { InputTo7(data) }

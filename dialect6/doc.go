// Package dialect6 translates the game layer between the world's 0.7 form
// and the 0.6 / DDNet dialect (net.md part B4-B5, ops-facts.md 4.2), for
// 0.6 and DDNet clients playing in a 0.7-native game. It is pure: no
// sockets, no time, no logging; the server's 0.6 network edge calls it for
// everything above the system layer.
//
// Its jobs, each one call:
//
//   - Snapshots: Translator.Snap turns the world's 0.7 snapshot for a viewer
//     (the items world.Snap put into a snap.Builder) into the 0.6 snapshot,
//     with the players' names, clans and skins from an Infos. The server
//     then deltas and encodes it with snap.Sizes6 and snap.MsgIDs6.
//   - Server messages: EncodeServer turns a 0.7 gamemsg value addressed to a
//     0.6 client (its Peer) into zero or more 0.6 messages (Out), rendering
//     0.7-only messages as the chat lines, broadcasts and sounds a 0.6
//     server sends.
//   - Client messages: Decoder.Decode turns a 0.6 client message into the
//     0.7 gamemsg value the server's handlers take; InputTo7 rewrites the
//     player flags of a 0.6 INPUT's PlayerInput for the world.
//
// State lives with the caller: Infos per game (players and game info,
// updated with SetPlayer/SetTeam/Remove or Observe of the 0.7 messages the
// server sends anyway), Peer per 0.6 connection, Translator/Out/Decoder as
// reusable scratch. Nothing allocates in steady state on the snapshot path.
//
// Wiring: a server can hold one Game per game and use only its methods:
// Connect when a 0.6 connection starts; SetPlayer for every slot before
// each round of snapshots (cheap when unchanged); Snapshot instead of the
// 0.7 builder's Finish for a 0.6 client (then delta with snap.Sizes6 and
// snap.MsgIDs6); ServerMessage instead of gamemsg.Encode, sending every
// message of the Out; ClientMessage for a 0.6 client's game messages
// ((nil, nil): nothing to do; *ChangeInfo: a name/skin change); Input on
// the PlayerInput of a 0.6 INPUT before world.DecodeInput.
//
// Skins: a 0.7 six-part skin is shown to 0.6 players as the standard 0.6
// skin it matches, or the closest one with its body and feet colours
// converted (Skin6From7); a 0.6 skin becomes the 0.7 preset of the same name
// with its colours converted (Skin7From6).
//
// Client ids: DDNet clients know ids 0..63 and get them unchanged. Vanilla
// 0.6 clients know 0..15 only (and index their tables with snapshot ids
// unchecked): a vanilla Peer maps the game's ids onto 16 (idmap.go), and
// SnapPeer, EncodeServer and DecodePeer translate through that map.
package dialect6

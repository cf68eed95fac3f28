// Package world is the deterministic Teeworlds 0.7.5 game simulation: the
// shared character physics (core.go, over the subpackages tuning,
// vmath and collision) and the server gameplay on top of it (characters,
// weapons, pickups, CTF flags, the DM/TDM/CTF/LMS/LTS controller, events) with
// the per-client snapshot contents.
//
// # Driving a World
//
// The server's game loop owns a World and calls, in this order:
//
//	between ticks   ConnectPlayer (NETMSG_READY), EnterPlayer (ENTERGAME),
//	                RemovePlayer (drop), DirectInput (as INPUT packets
//	                arrive: weapon switch and fire happen here), SetTeam,
//	                Kill, SetSpectatorMode, ...
//	per tick        SetInput for the input stamped for the next tick, Tick,
//	                DrainEvents (kill messages, team changes, game messages)
//	snapshot ticks  Snap for every in-game client (and -1 for a demo), then
//	                PostSnap once
//
// Inside Tick the order is the reference server's: tick counter, queued
// predicted inputs, world reset if requested, Tick of every projectile,
// laser, pickup and character (newest first), TickDefered of every
// character and flag, removal of destroyed entities, the controller (game
// states, team balance, inactivity, win check, CTF flag logic), then every
// player in ascending client id (respawns, view positions).
//
// The World has no clock, no goroutines and no unseeded randomness: the
// same calls give the same snapshots on every machine (see the determinism
// goldens testdata/dm8.golden, lms8.golden, lts8.golden, written by this
// code, not by the reference; the survival modes' random spawn points come
// from the seeded PRNG). All physics is float32 with explicit rounding of
// products so that no fused multiply-add changes a result. Replays of
// sessions recorded against the real 0.7.5 server (refsession_test.go)
// produce the reference's snapshots item for item.
package world

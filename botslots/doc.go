// Package botslots keeps the bots of one game: twserver's own players
// that have a client slot but no connection, play through package bots and
// say they are bots everywhere (PLAYERFLAG_BOT, the server info's client
// type, the recordings). It fills the game to bots.fill participants while
// a human is connected, gives a bot's slot to an arriving human, feeds
// each bot's input to the world through the calls a client's input takes
// (DirectInput as it is chosen after a tick, SetInput before the next: one
// tick behind, like a client's), records the bots' joins, inputs and
// leaves, and runs the console commands bot_add, bot_remove and bots_fill.
//
// The game loop (package server) holds one Slots and calls it through a
// few hooks; Slots calls the loop back through Host. Bots are never sent
// packets and never touch the world's physics.
package botslots

// Package live carries what a game loop shows of itself to its viewers: one
// immutable Frame per published tick (the game's state, its players, the
// positions of every entity and the last chat and kill lines) and the Hub
// that hands the newest frame to any number of readers.
//
// The game loop (package server) is the only writer: it asks Wanted on its
// snapshot ticks and, only then, builds a Frame and Publishes it. Readers
// (package web: the JSON API, the live stream, the page) never block the
// loop: they load the newest frame and wait for the next; a slow reader
// simply skips frames. Nothing here allocates while no one is reading.
package live

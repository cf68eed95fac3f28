// Package live carries what a game loop shows of itself to its viewers: one
// immutable Frame per published tick (the game's state, its players, the
// positions of every entity and the last chat and kill lines) and the Hub
// that hands the newest frame to any number of readers.
//
// The game loop (package server) is the only writer: it asks Wanted on its
// frame ticks and, only then, fills a pooled Frame (NewFrame) and Publishes
// it, keeping the last events in a Feed. Readers (package web: the JSON API,
// the live stream, the page) never block the loop: they Acquire the newest
// frame, Release it when done and wait for the next on their Reader's
// channel; a slow reader simply skips frames, and a frame a reader holds is
// not reused until it is released. The loop's side allocates nothing once
// the pooled frames' buffers have grown.
package live

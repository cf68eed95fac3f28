// Package index keeps a searchable index of a directory of teehistorian
// recordings in an embedded SQLite database (modernc.org/sqlite, pure Go):
// per file its game (uuid, map, game type, start time, length), every name
// its players had, and its events (joins, leaves, kills, deaths, flag
// captures, chat lines to everybody, with the tick). Update brings the index up to date
// incrementally; Find answers queries by player (also past names), map,
// game type, time range, event and chat text. Kills, deaths and captures
// come from replaying the file (teehist/replay), so they are known for
// twserver recordings only; chat lines come from the file's SERVER_MESSAGE
// records (twserver recordings that register that extension).
//
// Callers: cmd/twhist (index, find); anything else that wants to offer "a
// demo of this moment". A *sql.DB from Open may be shared by goroutines;
// Update should run in one goroutine at a time per directory.
package index

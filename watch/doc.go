// Package watch shows recorded games in the browser: it replays a
// teehistorian through teehist/replay (the replay the demos use, so the
// positions are the game's), turns every second tick into a frame of what
// the live minimap draws (tees with name, team, direction, weapon and hook;
// projectiles, lasers, pick-ups, flags and their carriers; the scores) and
// keeps the frames per file, compressed, in chunks of ChunkTicks. A file is
// built once in the background (at most MaxBuilds at a time) and its chunks
// are served as they become ready, so seeking never replays the file again;
// the cache holds at most MaxFiles files of at most MaxFileBytes each.
//
// Handler serves the viewer page /watch/{name} and its API; cmd/twhist's
// serve and the server's web page mount it.
package watch

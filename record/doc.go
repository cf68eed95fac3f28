// Package record records the games of one server (config [record]): one
// teehistorian file (package teehist) and/or one 0.7 server demo (package
// demo) per game, a game being one World from map load to the next map
// load or shutdown, and demos started and stopped by hand (the console's
// record and stoprecord).
//
// It owns the recording hooks the game loop calls (joins, drops, inputs,
// messages, console commands, rcon logins, the tick's positions and
// snapshots), the files' names (the game's UUID, or a name given by hand)
// and directory, their creation through a CreateFunc passed in Options,
// their closing at each game end and at shutdown, and pruning the
// directory to record.max_dir_mb, and the teehistorian's checkpoints (the
// whole world state every record.checkpoint_interval seconds, encoded
// into a reused buffer: docs/recording.md). It reads the loop's state only through
// what the loop hands it: the live configuration and a lookup of in-game
// names in Options, the world and map in Game, the rest as arguments. It
// never imports the server package.
//
// Goroutines: a Recorder belongs to the game loop goroutine; every method
// but Counters (atomic loads, safe from any goroutine) is called from it,
// and each is a no-op when recording is off. The loop only encodes: the
// bytes go to the teehist.FileWriter of each file, whose own goroutine
// writes them (bounded by teehist.DefaultQueueLen chunks; a backlog beyond
// MaxPending stops the game's recording, never the game). At a game end one
// goroutine per file closes it (and patches a demo's header); the recorder
// keeps only those still running, and Stop waits for them at most
// CloseWait.
package record

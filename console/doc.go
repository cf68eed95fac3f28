// Package console runs the server's console: the command lines typed on
// standard input, sent by rcon clients, by econ connections and the command
// FIFO, by passed votes and by an administration page.
//
// It owns:
//   - the line syntax of the 0.7.5 console (cmdparse.go): commands split at
//     ';', cut at '#', arguments parsed by each command's parameter string;
//   - the command table (commands.go) with its aliases and the reference's
//     commands twserver does not implement, and the one dispatch from a
//     command name to its Handler (console.go);
//   - the live settings (livesettings.go): every setting of config is a
//     command that prints or changes it, with the rule of when a change
//     takes effect and the list announced to rcon clients;
//   - the rcon login rule (rcon.go);
//   - the output sinks of the side channels (lines.go) and the event
//     lines of the 0.7.5 console that tools parse (events.go: joins,
//     drops, chat, rcon, kills, flags), formatted from plain values the
//     loop hands Events;
//   - the queue that hands the side channels' lines to the loop and waits
//     for them (queue.go).
//
// The game's actions (kick, ban, map change, votes, ...) are not here: the
// server hands New a Handler for each command the console does not run
// itself, and New fails when one is missing, so a command cannot silently
// do nothing. The console reaches the game only through those handlers and
// its Host (output, configuration, recording, map name, shutdown).
//
// A line runs for an explicit Caller (Run, Collect): standard input, an
// rcon client, a side channel, a vote or an admin page. Handlers get the
// caller as an argument; what they print goes to the Host's Output with the
// caller of the innermost line being run, and to every Collect in
// progress.
//
// Goroutines: a Console has no lock. The game loop creates it and is the
// only goroutine that calls Run, Collect and Print; the Host and the
// handlers are called back on that goroutine. Other goroutines hand their
// lines to the loop through a Queue (Queue.Submit, safe from any
// goroutine; the loop receives from Queue.C and calls Submitted.Run).
// Sinks are added before the loop starts and called from it, as are the
// methods of Events. Commands, UnsupportedCommands, RconCommands,
// Valid, CheckLogin, SettingTakesEffect, AppliesNow, RelPath and LogValue
// are safe from any goroutine.
package console

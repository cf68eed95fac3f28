// Package vote owns the votes of a game: the running vote (State: its
// kind, caller, target, command, deadline, forced result), each client
// slot's ballot and last call (Game), calling a vote by the reference's
// rules (Call: option, kick and spectate votes, their targets, refusals and
// console line; MayCall: the call interval), counting the ballots (one per
// address, spectators abstain), deciding and ending a vote (Game.Tick,
// Left, TeamChanged), the vote option list (Options: add, remove, clear,
// find with the reference's console texts) and the reference's vote
// messages as values (SvVoteSet, SvVoteStatus, SvVoteOptionListAdd
// batches). A kick or spectate vote's command is a console command by name
// with its arguments (Action), never a line to parse again.
//
// It never touches a socket or a client slot: the game loop (package
// server) asks it, hands it its slots through the Slots interface, runs
// the command of a passed vote and sends the messages it returns. Loop
// goroutine only; nothing here is safe for concurrent use.
package vote

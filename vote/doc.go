// Package vote owns the vote state machine of a game: the running vote
// (State: its kind, caller, target, command, deadline, forced result), the
// reference's calling rules that need no client list (the reason text,
// the call interval), counting the ballots (one per address, spectators
// abstain), deciding a vote (Decide), the vote option list (Options: add,
// remove, clear, find with the reference's console texts) and the
// reference's vote messages as values (SvVoteSet, SvVoteOptionListAdd
// batches).
//
// It never touches a socket or a client slot: the game loop (package
// server) asks it, hands it the ballots through the Ballots interface and
// sends the messages it returns. Loop goroutine only; nothing here is safe
// for concurrent use.
package vote

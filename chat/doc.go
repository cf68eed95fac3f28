// Package chat owns the chat policy of a game: how a player's chat line is
// cleaned (Clean), the spam limits of chat lines, emoticons and skin
// changes (Limiter, Spaced), and where a line goes (Route: to all, the
// team, or one player, with tournament mode 2's rule for spectators). The
// game loop (package server) dispatches the messages, asks it and sends
// what it decides; it never touches a socket or a client slot. Loop
// goroutine only.
package chat

// Package web serves a process's games to browsers: the public status page
// (/: games, players, chat and kill feed, plots of the last hour, a live
// minimap), its JSON API (/api/...) and the audited admin page (/admin).
//
// It reads each game through what the game loop publishes: the frames of
// package live (one per published tick, shared by every viewer, written
// to a game's viewers within a budget of writes a second; a slow viewer
// skips frames), the atomic counters and histograms of package
// server (sampled here for the plots), and for admin actions
// Server.RunAdmin, which queues the console line on the loop's bounded
// command queue like rcon and econ lines and writes the audit line. Nothing
// here runs on the loop's goroutine or can block it. cmd/twserver builds
// the Handler and serves it (alone, or beside /metrics on one listener).
//
// The finished games' recordings are served to the admin only unless
// Options.Recordings says otherwise (recordings.go); behind a reverse
// proxy named in Options.TrustedProxies the client's address, scheme and
// host come from its X-Forwarded-* headers (proxy.go), which the login
// limit, the audit lines, the Secure cookie and the origin check use.
package web

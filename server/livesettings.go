package server

import (
	"twserver/config"
	"twserver/console"
	"twserver/gamemsg"
	"twserver/teehist/replay"
)

// applySetting makes a changed setting (s.cfg is already the new
// configuration, old the previous one) take effect in the running game, as
// the reference's chained console callbacks do: game rules to the world
// (World.SetRules, applied the way the replay applies the recorded command),
// the server info to the browser and masters, the message of the day and
// the vote settings to the clients.
func (s *Server) applySetting(name, val string, old *config.Config) {
	if !console.AppliesNow(name) {
		return
	}
	rules := replay.Settings{World: s.world.Config(), SnapshotRate: old.Server.SnapshotRate}
	if rules.ApplySetting(name, val) {
		s.world.SetRules(rules.World)
	}
	switch name {
	case "sv_name", "password", "sv_hostname", "sv_skill_level", "sv_player_slots":
		before := s.edge.Info()
		s.publishInfo()
		s.pushInfo(name, before) // to the connected clients (rename6.go)
	case "sv_motd":
		s.broadcastGame(-1, &gamemsg.SvMotd{Message: s.cfg.Server.MOTD})
	}
	switch name {
	case "sv_vote_kick", "sv_vote_kick_min", "sv_vote_spectate", "sv_teambalance_time", "sv_player_slots":
		s.broadcastGame(-1, s.serverSettings())
	}
}

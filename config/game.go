package config

// Ranges of the game-rule settings (the reference's sv_* ranges).
const (
	// MaxRespawnDelayTDM is the largest game.respawn_delay_tdm in seconds.
	MaxRespawnDelayTDM = 10
	// MaxCountdown is the largest game.countdown in seconds.
	MaxCountdown = 1000
	// MaxTeambalanceTime is the largest game.teambalance_time in minutes.
	MaxTeambalanceTime = 1000
)

// validateRules checks the game-rule settings of the reference
// (src/game/variables.h) that the survival modes brought along.
func (g *GameConfig) validateRules() error {
	switch {
	case g.RespawnDelayTDM < 0 || g.RespawnDelayTDM > MaxRespawnDelayTDM:
		return invalid("game.respawn_delay_tdm", "%d is outside 0..%d seconds", g.RespawnDelayTDM, MaxRespawnDelayTDM)
	case g.Countdown < -1 || g.Countdown > MaxCountdown:
		return invalid("game.countdown", "%d is outside -1..%d seconds", g.Countdown, MaxCountdown)
	case g.TournamentMode < 0 || g.TournamentMode > 2:
		return invalid("game.tournament_mode", "%d is outside 0..2", g.TournamentMode)
	case g.TeambalanceTime < 0 || g.TeambalanceTime > MaxTeambalanceTime:
		return invalid("game.teambalance_time", "%d is outside 0..%d minutes", g.TeambalanceTime, MaxTeambalanceTime)
	}
	return nil
}

package config

// Ranges of the game-rule settings (the reference's sv_* ranges).
const (
	// MaxRespawnDelayTDM is the largest game.respawn_delay_tdm in seconds.
	MaxRespawnDelayTDM = 10
	// MaxMatchesPerMap is the largest game.matches_per_map.
	MaxMatchesPerMap = 100
	// MaxCountdown is the largest game.countdown in seconds.
	MaxCountdown = 1000
	// MaxTeambalanceTime is the largest game.teambalance_time in minutes.
	MaxTeambalanceTime = 1000
	// MaxSkillLevel is the largest game.skill_level (SERVERINFO_LEVEL_MAX).
	MaxSkillLevel = 2
)

// GameRules are the game-rule settings of the reference (src/game/variables.h)
// besides the game type and the limits; they are part of [game].
type GameRules struct {
	// TeamDamage lets team mates hurt each other (sv_teamdamage).
	TeamDamage bool `toml:"team_damage"`
	// Powerups creates the map's ninja pickups (sv_powerups, default true).
	Powerups bool `toml:"powerups"`
	// RespawnDelayTDM is the least respawn time after a TDM death in seconds,
	// 0..10 (sv_respawn_delay_tdm, default 3).
	RespawnDelayTDM int `toml:"respawn_delay_tdm"`
	// MatchSwap swaps the teams between matches (sv_match_swap, default true).
	MatchSwap bool `toml:"match_swap"`
	// MatchesPerMap is the number of matches on each map of map.rotation
	// before the next map, 1..100 (sv_matches_per_map, default 1).
	MatchesPerMap int `toml:"matches_per_map"`
	// Countdown freezes the game this many seconds before a match (in
	// survival modes: a round) starts or resumes; 0 = 3 s in lms/lts only,
	// -1 = never (sv_countdown, -1..1000).
	Countdown int `toml:"countdown"`
	// TournamentMode 1 puts new players in the spectators; 2 also keeps the
	// spectators' chat among themselves while a game runs
	// (sv_tournament_mode, 0..2).
	TournamentMode int `toml:"tournament_mode"`
	// TeambalanceTime is how many minutes teams may stay unbalanced before
	// players are moved; 0 = never (sv_teambalance_time, 0..1000, default 1).
	TeambalanceTime int `toml:"teambalance_time"`
	// PlayerReadyMode lets players end the warmup and pause/resume the game
	// with their ready state (sv_player_ready_mode).
	PlayerReadyMode bool `toml:"player_ready_mode"`
	// StrictSpectateMode hides health, armor and ammo of the followed player
	// from spectators (sv_strict_spectate_mode).
	StrictSpectateMode bool `toml:"strict_spectate_mode"`
	// SkillLevel is the skill level shown in the server browser: 0 casual,
	// 1 normal, 2 competitive (sv_skill_level, default 1).
	SkillLevel int `toml:"skill_level"`
}

// defaultGameRules returns the reference's defaults.
func defaultGameRules() GameRules {
	return GameRules{Powerups: true, RespawnDelayTDM: 3, MatchSwap: true, MatchesPerMap: 1,
		TeambalanceTime: 1, SkillLevel: 1}
}

func (g *GameRules) validate() error {
	switch {
	case g.RespawnDelayTDM < 0 || g.RespawnDelayTDM > MaxRespawnDelayTDM:
		return invalid("game.respawn_delay_tdm", "%d is outside 0..%d seconds", g.RespawnDelayTDM, MaxRespawnDelayTDM)
	case g.MatchesPerMap < 1 || g.MatchesPerMap > MaxMatchesPerMap:
		return invalid("game.matches_per_map", "%d is outside 1..%d", g.MatchesPerMap, MaxMatchesPerMap)
	case g.Countdown < -1 || g.Countdown > MaxCountdown:
		return invalid("game.countdown", "%d is outside -1..%d seconds", g.Countdown, MaxCountdown)
	case g.TournamentMode < 0 || g.TournamentMode > 2:
		return invalid("game.tournament_mode", "%d is outside 0..2", g.TournamentMode)
	case g.TeambalanceTime < 0 || g.TeambalanceTime > MaxTeambalanceTime:
		return invalid("game.teambalance_time", "%d is outside 0..%d minutes", g.TeambalanceTime, MaxTeambalanceTime)
	case g.SkillLevel < 0 || g.SkillLevel > MaxSkillLevel:
		return invalid("game.skill_level", "%d is outside 0..%d", g.SkillLevel, MaxSkillLevel)
	}
	return nil
}

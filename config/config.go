// Package config holds the twserver configuration: TOML structs with defaults,
// validation, and the table mapping every key to the familiar sv_* name of the
// reference server.
package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
)

// Bounds of the configuration values (reference ranges, net.md A7).
const (
	// MaxClientsLimit is the largest number of connection slots (NET_MAX_CLIENTS).
	MaxClientsLimit = 64
	// MaxPlayerSlotsLimit is the largest number of non-spectator players (MAX_PLAYERS).
	MaxPlayerSlotsLimit = 16
	// MaxNameLen is the longest server name in bytes (server info field limit).
	MaxNameLen = 64
	// MaxPasswordLen is the longest server or rcon password in bytes.
	MaxPasswordLen = 32
	// MaxVoteOptions is the largest number of vote options (MAX_VOTE_OPTIONS).
	MaxVoteOptions = 128
	// MaxVoteDescLen is the longest vote description in bytes (VOTE_DESC_LENGTH-1).
	MaxVoteDescLen = 63
	// MaxVoteCmdLen is the longest vote command in bytes (VOTE_CMD_LENGTH-1).
	MaxVoteCmdLen = 511
	// MaxMOTDLen is the longest message of the day in bytes.
	MaxMOTDLen = 900
	// MaxHostnameLen is the longest server.hostname in bytes (the server
	// info field's 128 bytes less its terminator).
	MaxHostnameLen = 127
	// MaxPathLen is the longest file path of a setting in bytes (PATH_MAX).
	MaxPathLen = 4096
	// MaxInactiveKickTime is the largest game.inactive_kick_time in minutes
	// (the reference's sv_inactivekick_time range).
	MaxInactiveKickTime = 1000
	// MaxMatchesPerMap is the largest game.matches_per_map (the reference's
	// sv_matches_per_map range).
	MaxMatchesPerMap = 100
	// MaxRconTries is the largest server.rcon_max_tries (the reference's
	// sv_rcon_max_tries range).
	MaxRconTries = 100
	// MaxBanTime is the largest voting.kick_ban_time and server.rcon_ban_time
	// in minutes (the reference's sv_vote_kick_bantime and sv_rcon_bantime range).
	MaxBanTime = 1440
	// MaxSpectateRejoinDelay is the largest voting.spectate_rejoin_delay in
	// minutes (the reference's sv_vote_spectate_rejoindelay range).
	MaxSpectateRejoinDelay = 1000
)

// Config is the whole server configuration.
type Config struct {
	Server ServerConfig `toml:"server"`
	Map    MapConfig    `toml:"map"`
	Game   GameConfig   `toml:"game"`
	Log    LogConfig    `toml:"log"`
	Votes  []VoteOption `toml:"vote"`
	Voting VotingConfig `toml:"voting"`
	Record RecordConfig `toml:"record"`
	// Bots are twserver's own players that play and say they are bots (bots.go).
	Bots BotsConfig `toml:"bots"`
	// Register, Econ, Metrics, Web and Agones are the operations side channels (ops.go).
	Register RegisterConfig `toml:"register"`
	Econ     EconConfig     `toml:"econ"`
	Metrics  MetricsConfig  `toml:"metrics"`
	Web      WebConfig      `toml:"web"`
	Agones   AgonesConfig   `toml:"agones"`
}

// RecordConfig selects recording (owned by package record).
type RecordConfig struct {
	// Teehistorian writes one teehistorian file per game (sv_tee_historian).
	Teehistorian bool `toml:"teehistorian"`
	// Demo writes one 0.7 server demo per game (sv_auto_demo_record).
	Demo bool `toml:"demo"`
	// Dir is the directory of the recordings.
	Dir string `toml:"dir"`
	// MaxFileMB ends the recording of a game whose file reaches this size.
	MaxFileMB int `toml:"max_file_mb"`
	// MaxDirMB deletes the oldest recordings in Dir beyond this total; 0 = no limit.
	MaxDirMB int `toml:"max_dir_mb"`
	// CheckpointInterval is the seconds of game between two checkpoints of
	// the teehistorian (the whole world state, where a viewer's seek starts
	// its replay); 0 writes none.
	CheckpointInterval int `toml:"checkpoint_interval"`
}

// MaxCheckpointInterval bounds record.checkpoint_interval (seconds).
const MaxCheckpointInterval = 3600

// ServerConfig holds network and access settings.
type ServerConfig struct {
	// Name is the server name shown in the browser (sv_name).
	Name string `toml:"name"`
	// Bind is the local IP address to listen on; empty means all addresses (bindaddr).
	Bind string `toml:"bind"`
	// Port is the UDP port (sv_port).
	Port int `toml:"port"`
	// MaxClients is the number of connection slots, 1..64 (sv_max_clients).
	MaxClients int `toml:"max_clients"`
	// PlayerSlots is the number of non-spectator players, 0..16 (sv_player_slots).
	PlayerSlots int `toml:"player_slots"`
	// MaxClientsPerIP limits connections from one IP address (sv_max_clients_per_ip).
	MaxClientsPerIP int `toml:"max_clients_per_ip"`
	// Password is the server password; empty means none (password).
	Password string `toml:"password"`
	// RconPassword enables the remote console; empty disables it (sv_rcon_password).
	RconPassword string `toml:"rcon_password"`
	// RconMaxTries is the number of wrong rcon passwords before a kick (sv_rcon_max_tries).
	RconMaxTries int `toml:"rcon_max_tries"`
	// RconBanTime is how many minutes a client that used up RconMaxTries is
	// banned; 0 kicks it instead (sv_rcon_bantime, default 5).
	RconBanTime int `toml:"rcon_ban_time"`
	// SnapshotRate is snapshots per second: 25 (every second tick) or 50 (every tick, sv_high_bandwidth).
	SnapshotRate int `toml:"snapshot_rate"`
	// MapDownloadSpeed is the number of map chunks per request, 1..16 (sv_map_download_speed).
	MapDownloadSpeed int `toml:"map_download_speed"`
	// MOTD is the message of the day (sv_motd).
	MOTD string `toml:"motd"`
	// Accept07 lets Teeworlds 0.7 clients connect and answers 0.7 info requests.
	Accept07 bool `toml:"accept_07"`
	// Accept06 lets 0.6 clients (DDNet's security-token handshake) connect
	// and answers 0.6 info requests (like DDNet's sv_sixup, the other way round).
	Accept06 bool `toml:"accept_06"`
	// Hostname is the host name announced in the server info (sv_hostname).
	Hostname string `toml:"hostname"`
	// SkillLevel is the players' skill level announced in the server info:
	// 0 casual, 1 normal, 2 competitive (sv_skill_level).
	SkillLevel int `toml:"skill_level"`
	// InputFIFO is the path of a named pipe read for console commands, one
	// per line, created when missing; empty = off (sv_input_fifo).
	InputFIFO string `toml:"input_fifo"`
}

// MapConfig selects the map(s) to serve.
type MapConfig struct {
	// File is the path of a .map file; empty with an empty Dir serves the embedded default map (sv_map).
	File string `toml:"file"`
	// Dir is a directory of .map files used with Rotation.
	Dir string `toml:"dir"`
	// Rotation lists map names (without .map) in Dir, played in order (sv_maprotation).
	Rotation []string `toml:"rotation"`
}

// GameConfig holds game rules.
type GameConfig struct {
	// Type is the game type: "dm", "tdm", "ctf", "lms" or "lts" (sv_gametype).
	Type string `toml:"type"`
	// ScoreLimit ends the round at this score; 0 = none (sv_scorelimit).
	ScoreLimit int `toml:"score_limit"`
	// TimeLimit ends the round after this many minutes; 0 = none (sv_timelimit).
	TimeLimit int `toml:"time_limit"`
	// Warmup is the warmup time in seconds; 0 = none, -1 = until every
	// player is ready (with PlayerReadyMode) (sv_warmup).
	Warmup int `toml:"warmup"`
	// PlayerReadyMode lets players start the match from warmup and pause
	// and resume it with their ready state (sv_player_ready_mode).
	PlayerReadyMode bool `toml:"player_ready_mode"`
	// InactiveKickTime is how many minutes a player may send no new input
	// before being moved to the spectators or, when their slots are full,
	// kicked; 0 = never (sv_inactivekick_time, default 3).
	InactiveKickTime int `toml:"inactive_kick_time"`
	// InactiveKick is what happens to an inactive player: 1 moved to the
	// spectators, 2 moved while spectator slots are free, else kicked, 3
	// kicked (sv_inactivekick, default 2).
	InactiveKick int `toml:"inactive_kick"`
	// InactiveKickSpec also kicks inactive spectators (sv_inactivekick_spec).
	InactiveKickSpec bool `toml:"inactive_kick_spec"`
	// SpamProtection limits team changes to one per 3 s and spectator
	// target changes to one per second (sv_spamprotection, default on; chat
	// is always limited).
	SpamProtection bool `toml:"spam_protection"`
	// StrictSpectate hides what a spectated player sees from the
	// spectators (sv_strict_spectate_mode).
	StrictSpectate bool `toml:"strict_spectate"`
	// SilentSpectator hides the joins and leaves of spectators from the
	// other players (sv_silent_spectator_mode, default on).
	SilentSpectator bool `toml:"silent_spectator"`
	// MatchesPerMap is the number of matches on each map of map.rotation
	// before the next one (sv_matches_per_map, 1..100).
	MatchesPerMap int `toml:"matches_per_map"`
	// TeamDamage lets team mates hurt each other (sv_teamdamage).
	TeamDamage bool `toml:"team_damage"`
	// Powerups creates the map's ninja pickups (sv_powerups, default true).
	Powerups bool `toml:"powerups"`
	// RespawnDelayTDM is the least respawn time after a TDM death in
	// seconds, 0..10 (sv_respawn_delay_tdm, default 3).
	RespawnDelayTDM int `toml:"respawn_delay_tdm"`
	// MatchSwap swaps the teams between matches (sv_match_swap, default true).
	MatchSwap bool `toml:"match_swap"`
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
}

// LogConfig selects logging.
type LogConfig struct {
	// Level is one of "debug", "info", "warn", "error" (console_output_level).
	Level string `toml:"level"`
	// Format is "console" (human) or "json".
	Format string `toml:"format"`
}

// VotingConfig holds the rules of the players' kick and spectate votes.
type VotingConfig struct {
	// Kick allows votes to kick players (sv_vote_kick, default true).
	Kick bool `toml:"kick"`
	// KickMin is the number of players (not spectators) a kick vote needs
	// (sv_vote_kick_min, 0..64).
	KickMin int `toml:"kick_min"`
	// KickBanTime bans a player kicked by vote for this many minutes; 0 only
	// kicks (sv_vote_kick_bantime, 0..1440, default 5).
	KickBanTime int `toml:"kick_ban_time"`
	// Spectate allows votes to move players to the spectators (sv_vote_spectate, default true).
	Spectate bool `toml:"spectate"`
	// SpectateRejoinDelay is how many minutes a player moved to the
	// spectators by vote must wait before joining again
	// (sv_vote_spectate_rejoindelay, 0..1000, default 3).
	SpectateRejoinDelay int `toml:"spectate_rejoin_delay"`
}

// VoteOption is one entry of the vote menu (add_vote).
type VoteOption struct {
	// Description is what players see.
	Description string `toml:"description"`
	// Command is the console command run when the vote passes.
	Command string `toml:"command"`
}

// Default returns the configuration used when no file is given: the embedded
// default map on UDP 8303 on all addresses.
func Default() Config {
	return Config{
		Server: ServerConfig{
			Name:             "twserver",
			Bind:             "",
			Port:             8303,
			MaxClients:       16,
			PlayerSlots:      8,
			MaxClientsPerIP:  4,
			RconMaxTries:     3,
			RconBanTime:      5,
			SnapshotRate:     25,
			MapDownloadSpeed: 8,
			Accept07:         true,
			Accept06:         true,
			SkillLevel:       1,
		},
		Game: GameConfig{Type: "dm", ScoreLimit: 20, InactiveKickTime: 3,
			InactiveKick: 2, SpamProtection: true, SilentSpectator: true, MatchesPerMap: 1,
			Powerups: true, RespawnDelayTDM: 3, MatchSwap: true, TeambalanceTime: 1},
		Voting:   VotingConfig{Kick: true, KickBanTime: 5, Spectate: true, SpectateRejoinDelay: 3},
		Log:      LogConfig{Level: "info", Format: "console"},
		Record:   RecordConfig{Dir: "recordings", MaxFileMB: 512, MaxDirMB: 8192, CheckpointInterval: 30},
		Bots:     defaultBots(),
		Register: defaultRegister(),
		Econ:     defaultEcon(),
		Web:      WebConfig{PublicChat: true, Recordings: RecordingsAdmin},
	}
}

// Load reads and validates a TOML file on top of Default.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	cfg, err := Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ErrUnknownKey is wrapped by the error returned for a key the configuration does not know.
var ErrUnknownKey = errors.New("unknown key")

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid value")

// Parse decodes TOML text on top of Default, rejects unknown keys (naming the
// key and its line) and validates the result.
func Parse(data []byte) (Config, error) {
	cfg, err := decodeTOML(data)
	if err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// decodeTOML decodes TOML text on top of Default and rejects unknown keys,
// without validating the values.
func decodeTOML(data []byte) (Config, error) {
	cfg := Default()
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&cfg)
	if err != nil {
		return Config{}, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		hint := didYouMean(k, tomlNames())
		if n := keyLine(data, k); n > 0 {
			return Config{}, fmt.Errorf("line %d: %w %q%s", n, ErrUnknownKey, k, hint)
		}
		return Config{}, fmt.Errorf("%w %q%s", ErrUnknownKey, k, hint)
	}
	return cfg, nil
}

// keyLine finds the line that defines the dotted key k (table headers and
// "key =" lines); 0 when it cannot be found.
func keyLine(data []byte, k string) int {
	found := 0
	walkLines(data, func(line int, header bool, full string) bool {
		if full == k || (!header && strings.HasPrefix(k, full+".")) {
			found = line
		}
		return found == 0
	})
	return found
}

// voteLine finds the line of the header of the i-th [[vote]] table; 0 when
// it cannot be found.
func voteLine(data []byte, i int) int {
	found, n := 0, 0
	walkLines(data, func(line int, header bool, full string) bool {
		if header && full == "vote" {
			if n == i {
				found = line
			}
			n++
		}
		return found == 0
	})
	return found
}

// walkLines calls visit with every table header (header true, full its
// name) and every "key =" line (full the dotted key) of TOML text, with its
// line number, until visit returns false.
func walkLines(data []byte, visit func(line int, header bool, full string) bool) {
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(data, utf8BOM)))
	table := ""
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		if s[0] == '[' {
			h := strings.Trim(s, "[] \t")
			if i := strings.IndexByte(h, ']'); i >= 0 {
				h = h[:i]
			}
			table = strings.TrimSpace(h)
			if !visit(line, true, table) {
				return
			}
			continue
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			continue
		}
		full := strings.Trim(strings.TrimSpace(s[:eq]), `"'`)
		if table != "" {
			full = table + "." + full
		}
		if !visit(line, false, full) {
			return
		}
	}
}

// InvalidError is the error of a value Validate refuses; it wraps ErrInvalid.
type InvalidError struct {
	// Key is the dotted key of the value (server.port, vote[2].command).
	Key string
	// Msg says what is wrong with it.
	Msg string
	// Cause is the other key whose value makes Key's invalid (econ.port
	// for an econ.password that is missing), "" when Key's value is wrong
	// by itself; an error names where Cause was set when Key was not set.
	Cause string
}

func (e *InvalidError) Error() string { return ErrInvalid.Error() + " for " + e.Key + ": " + e.Msg }

// Unwrap returns ErrInvalid.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

func invalid(key, format string, args ...any) error {
	return &InvalidError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// invalidBecause is invalid for a value that is wrong only together with
// the value of the key cause.
func invalidBecause(key, cause, format string, args ...any) error {
	return &InvalidError{Key: key, Msg: fmt.Sprintf(format, args...), Cause: cause}
}

// Validate checks every value and names the offending key.
func (c *Config) Validate() error {
	s := &c.Server
	if s.Name == "" || len(s.Name) > MaxNameLen {
		return invalid("server.name", "length must be 1..%d bytes", MaxNameLen)
	}
	if err := checkBind("server.bind", s.Bind); err != nil {
		return err
	}
	if s.Port < 0 || s.Port > 65535 {
		return invalid("server.port", "%d is outside 0..65535", s.Port)
	}
	if s.MaxClients < 1 || s.MaxClients > MaxClientsLimit {
		return invalid("server.max_clients", "%d is outside 1..%d", s.MaxClients, MaxClientsLimit)
	}
	if s.PlayerSlots < 0 || s.PlayerSlots > MaxPlayerSlotsLimit {
		return invalid("server.player_slots", "%d is outside 0..%d", s.PlayerSlots, MaxPlayerSlotsLimit)
	}
	if s.MaxClientsPerIP < 1 || s.MaxClientsPerIP > MaxClientsLimit {
		return invalid("server.max_clients_per_ip", "%d is outside 1..%d", s.MaxClientsPerIP, MaxClientsLimit)
	}
	if len(s.Password) > MaxPasswordLen {
		return invalid("server.password", "longer than %d bytes", MaxPasswordLen)
	}
	if len(s.RconPassword) > MaxPasswordLen {
		return invalid("server.rcon_password", "longer than %d bytes", MaxPasswordLen)
	}
	if s.RconMaxTries < 0 || s.RconMaxTries > MaxRconTries {
		return invalid("server.rcon_max_tries", "%d is outside 0..%d", s.RconMaxTries, MaxRconTries)
	}
	if s.RconBanTime < 0 || s.RconBanTime > MaxBanTime {
		return invalid("server.rcon_ban_time", "%d is outside 0..%d minutes", s.RconBanTime, MaxBanTime)
	}
	if s.SnapshotRate != 25 && s.SnapshotRate != 50 {
		return invalid("server.snapshot_rate", "%d: must be 25 (every second tick) or 50 (every tick)", s.SnapshotRate)
	}
	if s.MapDownloadSpeed < 1 || s.MapDownloadSpeed > 16 {
		return invalid("server.map_download_speed", "%d is outside 1..16", s.MapDownloadSpeed)
	}
	if !s.Accept07 && !s.Accept06 {
		return invalidBecause("server.accept_06", "server.accept_07", "false together with server.accept_07 = false: no client could connect")
	}
	if len(s.MOTD) > MaxMOTDLen {
		return invalid("server.motd", "longer than %d bytes", MaxMOTDLen)
	}
	if len(s.Hostname) > MaxHostnameLen {
		return invalid("server.hostname", "longer than %d bytes", MaxHostnameLen)
	}
	if s.SkillLevel < 0 || s.SkillLevel > 2 {
		return invalid("server.skill_level", "%d is outside 0..2", s.SkillLevel)
	}
	if len(s.InputFIFO) > MaxPathLen || strings.ContainsRune(s.InputFIFO, 0) {
		return invalid("server.input_fifo", "not a path of at most %d bytes", MaxPathLen)
	}
	m := &c.Map
	if m.File != "" && m.Dir != "" {
		return invalidBecause("map.file", "map.dir", "set either map.file or map.dir, not both")
	}
	if len(m.Rotation) > 0 && m.Dir == "" {
		return invalidBecause("map.rotation", "map.dir", "needs map.dir")
	}
	for _, n := range m.Rotation {
		if n == "" || strings.ContainsAny(n, `/\`) || len(n) > 31 {
			return invalid("map.rotation", "%q is not a map name (1..31 bytes, no path separators)", n)
		}
	}
	switch c.Game.Type {
	case "dm", "tdm", "ctf", "lms", "lts":
	default:
		return invalid("game.type", "%q: must be dm, tdm, ctf, lms or lts", c.Game.Type)
	}
	if err := c.Game.validateRules(); err != nil {
		return err
	}
	if c.Game.ScoreLimit < 0 || c.Game.ScoreLimit > 100000 {
		return invalid("game.score_limit", "%d is outside 0..100000", c.Game.ScoreLimit)
	}
	if c.Game.TimeLimit < 0 || c.Game.TimeLimit > 10000 {
		return invalid("game.time_limit", "%d is outside 0..10000 minutes", c.Game.TimeLimit)
	}
	if c.Game.Warmup < -1 || c.Game.Warmup > 3600 {
		return invalid("game.warmup", "%d is outside -1..3600 seconds", c.Game.Warmup)
	}
	if c.Game.InactiveKickTime < 0 || c.Game.InactiveKickTime > MaxInactiveKickTime {
		return invalid("game.inactive_kick_time", "%d is outside 0..%d minutes", c.Game.InactiveKickTime, MaxInactiveKickTime)
	}
	if c.Game.InactiveKick < 1 || c.Game.InactiveKick > 3 {
		return invalid("game.inactive_kick", "%d is outside 1..3", c.Game.InactiveKick)
	}
	if c.Game.MatchesPerMap < 1 || c.Game.MatchesPerMap > MaxMatchesPerMap {
		return invalid("game.matches_per_map", "%d is outside 1..%d", c.Game.MatchesPerMap, MaxMatchesPerMap)
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		return invalid("log.level", "%q: must be debug, info, warn or error", c.Log.Level)
	}
	switch c.Log.Format {
	case "console", "json":
	default:
		return invalid("log.format", "%q: must be console or json", c.Log.Format)
	}
	if r := &c.Record; (r.Teehistorian || r.Demo) && r.Dir == "" {
		return invalidBecause("record.dir", recordingKey(r), "must be set when recording")
	} else if r.MaxFileMB < 1 || r.MaxFileMB > 1<<20 {
		return invalid("record.max_file_mb", "%d is outside 1..%d", r.MaxFileMB, 1<<20)
	} else if r.MaxDirMB < 0 || r.MaxDirMB > 1<<30 {
		return invalid("record.max_dir_mb", "%d is outside 0..%d", r.MaxDirMB, 1<<30)
	} else if r.CheckpointInterval < 0 || r.CheckpointInterval > MaxCheckpointInterval {
		return invalid("record.checkpoint_interval", "%d is outside 0..%d", r.CheckpointInterval, MaxCheckpointInterval)
	}
	if err := c.validateOps(); err != nil {
		return err
	}
	if err := c.Bots.validate(); err != nil {
		return err
	}
	if v := &c.Voting; v.KickMin < 0 || v.KickMin > MaxClientsLimit {
		return invalid("voting.kick_min", "%d is outside 0..%d", v.KickMin, MaxClientsLimit)
	} else if v.KickBanTime < 0 || v.KickBanTime > MaxBanTime {
		return invalid("voting.kick_ban_time", "%d is outside 0..%d minutes", v.KickBanTime, MaxBanTime)
	} else if v.SpectateRejoinDelay < 0 || v.SpectateRejoinDelay > MaxSpectateRejoinDelay {
		return invalid("voting.spectate_rejoin_delay", "%d is outside 0..%d minutes", v.SpectateRejoinDelay, MaxSpectateRejoinDelay)
	}
	if len(c.Votes) > MaxVoteOptions {
		return invalid("vote", "%d options, at most %d", len(c.Votes), MaxVoteOptions)
	}
	seen := make(map[string]bool, len(c.Votes))
	for i, v := range c.Votes {
		if v.Description == "" || len(v.Description) > MaxVoteDescLen {
			return invalid(fmt.Sprintf("vote[%d].description", i), "length must be 1..%d bytes", MaxVoteDescLen)
		}
		if v.Command == "" || len(v.Command) > MaxVoteCmdLen {
			return invalid(fmt.Sprintf("vote[%d].command", i), "length must be 1..%d bytes", MaxVoteCmdLen)
		}
		if seen[v.Description] {
			return invalid(fmt.Sprintf("vote[%d].description", i), "duplicate %q", v.Description)
		}
		seen[v.Description] = true
	}
	return nil
}

// recordingKey is the key that turns the recording r asks for on.
func recordingKey(r *RecordConfig) string {
	if r.Teehistorian {
		return "record.teehistorian"
	}
	return "record.demo"
}

// SvName pairs a configuration key with the reference server's variable name.
type SvName struct {
	Key, Sv, Doc string
}

// SvNames lists every key with its familiar sv_* name. It drives the
// reference syntax (-f FILE, command-line commands) and the environment
// (SV_NAME=...): a row whose Sv is a console name makes that setting set its
// Key by the reference's meaning and range (settings.go); "(none)" marks a
// key only TOML (and TWSERVER_* variables) set. The tables of docs/configuration.md are
// checked against it.
var SvNames = []SvName{
	{"server.name", "sv_name", "server name shown in the browser"},
	{"server.bind", "bindaddr", "local IP address to listen on (empty = all)"},
	{"server.port", "sv_port", "UDP port (default 8303)"},
	{"server.max_clients", "sv_max_clients", "connection slots, 1..64"},
	{"server.player_slots", "sv_player_slots", "non-spectator players, 0..16"},
	{"server.max_clients_per_ip", "sv_max_clients_per_ip", "connections per IP address (default 4)"},
	{"server.password", "password", "server password (empty = none)"},
	{"server.rcon_password", "sv_rcon_password", "remote console password (empty = rcon off)"},
	{"server.rcon_max_tries", "sv_rcon_max_tries", "wrong rcon passwords before a kick or ban (0..100, default 3)"},
	{"server.rcon_ban_time", "sv_rcon_bantime", "minutes a client is banned after too many wrong rcon passwords, 0 = kick (0..1440, default 5)"},
	{"server.snapshot_rate", "sv_high_bandwidth", "25 = every second tick, 50 = every tick"},
	{"server.map_download_speed", "sv_map_download_speed", "map chunks per request, 1..16"},
	{"server.motd", "sv_motd", "message of the day"},
	{"server.hostname", "sv_hostname", "host name announced in the server info"},
	{"server.skill_level", "sv_skill_level", "skill level announced in the server info: 0 casual, 1 normal, 2 competitive"},
	{"server.accept_07", "(none)", "0.7 clients may connect; false refuses them (\"0.7 connections are not accepted at this time\") and leaves 0.7 browsers unanswered"},
	{"server.accept_06", "(none)", "0.6 and DDNet clients may connect (DDNet's sv_sixup, the other way round); false refuses them the same way (at least one of the two stays true)"},
	{"server.input_fifo", "sv_input_fifo", "named pipe read for console commands, one per line, created when missing (empty = off)"},
	{"map.file", "sv_map", "path of a .map file (empty = embedded default map)"},
	{"map.dir", "(none)", "directory of .map files for the rotation"},
	{"map.rotation", "sv_maprotation", "map names in map.dir, played in order"},
	{"game.type", "sv_gametype", "dm, tdm, ctf, lms or lts"},
	{"game.score_limit", "sv_scorelimit", "score that ends the round (0 = none)"},
	{"game.time_limit", "sv_timelimit", "minutes per round (0 = none)"},
	{"game.warmup", "sv_warmup", "warmup seconds (0 = none, -1 = until every player is ready)"},
	{"game.player_ready_mode", "sv_player_ready_mode", "players start the match and pause it with their ready state"},
	{"game.inactive_kick_time", "sv_inactivekick_time", "minutes without input before an inactive player is moved to spectators or kicked (0 = never)"},
	{"game.inactive_kick", "sv_inactivekick", "inactive players: 1 to spectators, 2 to spectators while slots are free else kicked, 3 kicked"},
	{"game.inactive_kick_spec", "sv_inactivekick_spec", "also kick inactive spectators"},
	{"game.spam_protection", "sv_spamprotection", "at most one team change per 3 s, one spectator target change per second (chat is always limited)"},
	{"game.strict_spectate", "sv_strict_spectate_mode", "spectators do not see what a spectated player sees"},
	{"game.silent_spectator", "sv_silent_spectator_mode", "joins and leaves of spectators are not shown"},
	{"game.matches_per_map", "sv_matches_per_map", "matches on each map of map.rotation before the next"},
	{"game.team_damage", "sv_teamdamage", "team mates can hurt each other"},
	{"game.powerups", "sv_powerups", "ninja pickups on the map"},
	{"game.respawn_delay_tdm", "sv_respawn_delay_tdm", "seconds before a TDM respawn"},
	{"game.match_swap", "sv_match_swap", "swap the teams between matches"},
	{"game.countdown", "sv_countdown", "seconds frozen before a match (lms/lts: a round) starts or resumes (0 = 3 s in lms/lts only, -1 = never)"},
	{"game.tournament_mode", "sv_tournament_mode", "1 new players join as spectators, 2 also spectators chat only among themselves while a game runs"},
	{"game.teambalance_time", "sv_teambalance_time", "minutes teams may stay unbalanced before players are moved (0 = never)"},
	{"log.level", "console_output_level", "debug, info, warn or error"},
	{"log.format", "(none)", "console or json"},
	{"[[vote]] description/command", "add_vote", "vote menu entries"},
	{"voting.kick", "sv_vote_kick", "players may vote to kick players (default true)"},
	{"voting.kick_min", "sv_vote_kick_min", "players (not spectators) needed for a kick vote (0..64, default 0)"},
	{"voting.kick_ban_time", "sv_vote_kick_bantime", "minutes a player kicked by vote is banned, 0 = kick only (0..1440, default 5)"},
	{"voting.spectate", "sv_vote_spectate", "players may vote to move players to the spectators (default true)"},
	{"voting.spectate_rejoin_delay", "sv_vote_spectate_rejoindelay", "minutes before a player moved by vote may join again (0..1000, default 3)"},
	{"record.teehistorian", "sv_tee_historian", "write a teehistorian file per game"},
	{"record.demo", "sv_auto_demo_record", "write a 0.7 demo per game"},
	{"record.dir", "(none)", "directory of the recordings (default recordings)"},
	{"record.max_file_mb", "(none)", "size at which a game's recording stops (default 512)"},
	{"record.max_dir_mb", "(none)", "oldest recordings deleted beyond this total (0 = no limit)"},
	{"record.checkpoint_interval", "(none)", "seconds of game between two checkpoints of the world state in the teehistorian, where a viewer's seek starts (0..3600, 0 = none, default 30; [recording.md](recording.md#checkpoints))"},
	{"web.recordings", "(none)", "who lists and downloads the finished recordings on the web page: off, admin (after the admin login, default) or public"},
	{"web.trusted_proxies", "(none)", "networks (CIDR) of reverse proxies whose X-Forwarded-For, -Proto and -Host are believed (default none)"},
	{"web.admin_hosts", "(none)", "host names the admin page is reached by besides IP addresses and localhost, such as a proxy's site (default none; others are refused against DNS rebinding)"},
	{"bots.fill", "(none)", "keep at least this many participants while a human is connected: bots join while humans are fewer, one leaves per arriving human (0 = off)"},
	{"bots.max", "(none)", "most bots at once, also with bot_add (default 8)"},
	{"bots.skill", "(none)", "skill of the bots that fill: easy, normal or hard (default normal)"},
	{"bots.names", "(none)", "names the bots take in turn (default a built-in list)"},
	{"register.enabled", "sv_register", "register with the master servers (off by default)"},
	{"register.port", "sv_external_port", "port announced to the masters (0 = server.port)"},
	{"register.url", "sv_register_url", "DDNet's HTTP registration endpoint"},
	{"econ.port", "ec_port", "TCP port of the external console (0 = off)"},
	{"econ.bind", "ec_bindaddr", "local IP address of the external console (default 127.0.0.1)"},
	{"econ.password", "ec_password", "external console password (required when econ.port is set)"},
	{"econ.auth_timeout", "ec_auth_timeout", "seconds an econ connection may take to log in (default 30)"},
	{"econ.ban_time", "ec_bantime", "seconds an address is banned after 3 wrong econ passwords, 0 = drop only (the reference's ec_bantime counts minutes; default 300)"},
	{"econ.output_level", "ec_output_level", "console lines sent to econ clients: 0, 1 or 2 (0.7.5 meaning, default 1)"},
}

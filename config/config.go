// Package config holds the twserver configuration: TOML structs with defaults,
// validation, and the table mapping every key to the familiar sv_* name of the
// reference server.
package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/netip"
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
	// MaxPathLen is the longest file path of a setting in bytes (PATH_MAX).
	MaxPathLen = 4096
	// MaxInactiveKickTime is the largest game.inactive_kick_time in minutes
	// (the reference's sv_inactivekick_time range).
	MaxInactiveKickTime = 1000
)

// Config is the whole server configuration.
type Config struct {
	Server ServerConfig `toml:"server"`
	Map    MapConfig    `toml:"map"`
	Game   GameConfig   `toml:"game"`
	Log    LogConfig    `toml:"log"`
	Votes  []VoteOption `toml:"vote"`
	Record RecordConfig `toml:"record"`
	// Register, Econ, Metrics and Agones are the operations side channels (ops.go).
	Register RegisterConfig `toml:"register"`
	Econ     EconConfig     `toml:"econ"`
	Metrics  MetricsConfig  `toml:"metrics"`
	Agones   AgonesConfig   `toml:"agones"`
}

// RecordConfig selects recording (owned by the recording code, server/record*.go).
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
}

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
	// SnapshotRate is snapshots per second: 25 (every second tick) or 50 (every tick, sv_high_bandwidth).
	SnapshotRate int `toml:"snapshot_rate"`
	// MapDownloadSpeed is the number of map chunks per request, 1..16 (sv_map_download_speed).
	MapDownloadSpeed int `toml:"map_download_speed"`
	// MOTD is the message of the day (sv_motd).
	MOTD string `toml:"motd"`
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
	// Type is the game type: "dm", "tdm" or "ctf" (sv_gametype).
	Type string `toml:"type"`
	// ScoreLimit ends the round at this score; 0 = none (sv_scorelimit).
	ScoreLimit int `toml:"score_limit"`
	// TimeLimit ends the round after this many minutes; 0 = none (sv_timelimit).
	TimeLimit int `toml:"time_limit"`
	// Warmup is the warmup time in seconds; 0 = none (sv_warmup).
	Warmup int `toml:"warmup"`
	// InactiveKickTime is how many minutes a player may send no new input
	// before being moved to the spectators or, when their slots are full,
	// kicked; 0 = never (sv_inactivekick_time, default 3).
	InactiveKickTime int `toml:"inactive_kick_time"`
}

// LogConfig selects logging.
type LogConfig struct {
	// Level is one of "debug", "info", "warn", "error" (console_output_level).
	Level string `toml:"level"`
	// Format is "console" (human) or "json".
	Format string `toml:"format"`
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
			MaxClients:       8,
			PlayerSlots:      8,
			MaxClientsPerIP:  4,
			RconMaxTries:     3,
			SnapshotRate:     25,
			MapDownloadSpeed: 8,
		},
		Game:     GameConfig{Type: "dm", ScoreLimit: 20, InactiveKickTime: 3},
		Log:      LogConfig{Level: "info", Format: "console"},
		Record:   RecordConfig{Dir: "recordings", MaxFileMB: 512, MaxDirMB: 8192},
		Register: defaultRegister(),
		Econ:     defaultEcon(),
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
	cfg := Default()
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&cfg)
	if err != nil {
		return Config{}, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		return Config{}, fmt.Errorf("line %d: %w %q", keyLine(data, k), ErrUnknownKey, k)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// keyLine finds the line that defines the dotted key k (table headers and
// "key =" lines); 0 when it cannot be found.
func keyLine(data []byte, k string) int {
	sc := bufio.NewScanner(bytes.NewReader(data))
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
			if table == k {
				return line
			}
			continue
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(s[:eq]), `"'`)
		full := name
		if table != "" {
			full = table + "." + name
		}
		if full == k || strings.HasPrefix(k, full+".") {
			return line
		}
	}
	return 0
}

func invalid(key, format string, args ...any) error {
	return fmt.Errorf("%w for %s: %s", ErrInvalid, key, fmt.Sprintf(format, args...))
}

// Validate checks every value and names the offending key.
func (c *Config) Validate() error {
	s := &c.Server
	if s.Name == "" || len(s.Name) > MaxNameLen {
		return invalid("server.name", "length must be 1..%d bytes", MaxNameLen)
	}
	if s.Bind != "" {
		if _, err := netip.ParseAddr(s.Bind); err != nil {
			return invalid("server.bind", "%q is not an IP address", s.Bind)
		}
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
	if s.RconMaxTries < 0 || s.RconMaxTries > 100 {
		return invalid("server.rcon_max_tries", "%d is outside 0..100", s.RconMaxTries)
	}
	if s.SnapshotRate != 25 && s.SnapshotRate != 50 {
		return invalid("server.snapshot_rate", "%d: must be 25 (every second tick) or 50 (every tick)", s.SnapshotRate)
	}
	if s.MapDownloadSpeed < 1 || s.MapDownloadSpeed > 16 {
		return invalid("server.map_download_speed", "%d is outside 1..16", s.MapDownloadSpeed)
	}
	if len(s.MOTD) > MaxMOTDLen {
		return invalid("server.motd", "longer than %d bytes", MaxMOTDLen)
	}
	if len(s.InputFIFO) > MaxPathLen || strings.ContainsRune(s.InputFIFO, 0) {
		return invalid("server.input_fifo", "not a path of at most %d bytes", MaxPathLen)
	}
	m := &c.Map
	if m.File != "" && m.Dir != "" {
		return invalid("map.file", "set either map.file or map.dir, not both")
	}
	if len(m.Rotation) > 0 && m.Dir == "" {
		return invalid("map.rotation", "needs map.dir")
	}
	for _, n := range m.Rotation {
		if n == "" || strings.ContainsAny(n, `/\`) || len(n) > 31 {
			return invalid("map.rotation", "%q is not a map name (1..31 bytes, no path separators)", n)
		}
	}
	switch c.Game.Type {
	case "dm", "tdm", "ctf":
	default:
		return invalid("game.type", "%q: must be dm, tdm or ctf", c.Game.Type)
	}
	if c.Game.ScoreLimit < 0 || c.Game.ScoreLimit > 100000 {
		return invalid("game.score_limit", "%d is outside 0..100000", c.Game.ScoreLimit)
	}
	if c.Game.TimeLimit < 0 || c.Game.TimeLimit > 10000 {
		return invalid("game.time_limit", "%d is outside 0..10000 minutes", c.Game.TimeLimit)
	}
	if c.Game.Warmup < 0 || c.Game.Warmup > 3600 {
		return invalid("game.warmup", "%d is outside 0..3600 seconds", c.Game.Warmup)
	}
	if c.Game.InactiveKickTime < 0 || c.Game.InactiveKickTime > MaxInactiveKickTime {
		return invalid("game.inactive_kick_time", "%d is outside 0..%d minutes", c.Game.InactiveKickTime, MaxInactiveKickTime)
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
		return invalid("record.dir", "must be set when recording")
	} else if r.MaxFileMB < 1 || r.MaxFileMB > 1<<20 {
		return invalid("record.max_file_mb", "%d is outside 1..%d", r.MaxFileMB, 1<<20)
	} else if r.MaxDirMB < 0 || r.MaxDirMB > 1<<30 {
		return invalid("record.max_dir_mb", "%d is outside 0..%d", r.MaxDirMB, 1<<30)
	}
	if err := c.validateOps(); err != nil {
		return err
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

// SvName pairs a configuration key with the reference server's variable name.
type SvName struct {
	Key, Sv, Doc string
}

// SvNames lists every key with its familiar sv_* name (for the README).
var SvNames = []SvName{
	{"server.name", "sv_name", "server name shown in the browser"},
	{"server.bind", "bindaddr", "local IP address to listen on (empty = all)"},
	{"server.port", "sv_port", "UDP port (default 8303)"},
	{"server.max_clients", "sv_max_clients", "connection slots, 1..64"},
	{"server.player_slots", "sv_player_slots", "non-spectator players, 0..16"},
	{"server.max_clients_per_ip", "sv_max_clients_per_ip", "connections per IP address (default 4)"},
	{"server.password", "password", "server password (empty = none)"},
	{"server.rcon_password", "sv_rcon_password", "remote console password (empty = rcon off)"},
	{"server.rcon_max_tries", "sv_rcon_max_tries", "wrong rcon passwords before a kick"},
	{"server.snapshot_rate", "sv_high_bandwidth", "25 = every second tick, 50 = every tick"},
	{"server.map_download_speed", "sv_map_download_speed", "map chunks per request, 1..16"},
	{"server.motd", "sv_motd", "message of the day"},
	{"server.input_fifo", "sv_input_fifo", "named pipe read for console commands, one per line, created when missing (empty = off)"},
	{"map.file", "sv_map", "path of a .map file (empty = embedded default map)"},
	{"map.dir", "(none)", "directory of .map files for the rotation"},
	{"map.rotation", "sv_maprotation", "map names in map.dir, played in order"},
	{"game.type", "sv_gametype", "dm, tdm or ctf"},
	{"game.score_limit", "sv_scorelimit", "score that ends the round (0 = none)"},
	{"game.time_limit", "sv_timelimit", "minutes per round (0 = none)"},
	{"game.warmup", "sv_warmup", "warmup seconds (0 = none)"},
	{"game.inactive_kick_time", "sv_inactivekick_time", "minutes without input before an inactive player is moved to spectators or kicked (0 = never)"},
	{"log.level", "console_output_level", "debug, info, warn or error"},
	{"log.format", "(none)", "console or json"},
	{"[[vote]] description/command", "add_vote", "vote menu entries"},
	{"record.teehistorian", "sv_tee_historian", "write a teehistorian file per game"},
	{"record.demo", "sv_auto_demo_record", "write a 0.7 demo per game"},
	{"record.dir", "(none)", "directory of the recordings (default recordings)"},
	{"record.max_file_mb", "(none)", "size at which a game's recording stops (default 512)"},
	{"record.max_dir_mb", "(none)", "oldest recordings deleted beyond this total (0 = no limit)"},
}

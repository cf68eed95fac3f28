package replay

import (
	"fmt"
	"strconv"
	"strings"

	"twserver/teehist"
	"twserver/world"
)

// PrngPrefix starts the header's prng_description of twserver files; the
// 16 hex digits after it are the world seed.
const PrngPrefix = "twserver-splitmix64:"

// PrngDescription returns the prng_description for a world seed.
func PrngDescription(seed uint64) string { return fmt.Sprintf("%s%016x", PrngPrefix, seed) }

// ParseSeed extracts the world seed from a prng_description.
func ParseSeed(desc string) (uint64, error) {
	h, ok := strings.CutPrefix(desc, PrngPrefix)
	if !ok {
		return 0, fmt.Errorf("prng %q: not a twserver seed", desc)
	}
	return strconv.ParseUint(h, 16, 64)
}

// Settings are the recorded settings that determine a game besides the map
// and the seed.
type Settings struct {
	World world.Config
	// SnapshotRate is 50 (snapshots, and so World.PostSnap, every tick) or 25.
	SnapshotRate int
}

// config keys (the familiar sv_* names) of every field of world.Config.
type field struct {
	key string
	get func(*Settings) int
	set func(*Settings, int)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

var fields = []field{
	{"sv_gametype", func(s *Settings) int { return int(s.World.GameType) }, func(s *Settings, v int) { s.World.GameType = world.GameType(v) }},
	{"sv_scorelimit", func(s *Settings) int { return s.World.ScoreLimit }, func(s *Settings, v int) { s.World.ScoreLimit = v }},
	{"sv_timelimit", func(s *Settings) int { return s.World.TimeLimit }, func(s *Settings, v int) { s.World.TimeLimit = v }},
	{"sv_warmup", func(s *Settings) int { return s.World.Warmup }, func(s *Settings, v int) { s.World.Warmup = v }},
	{"sv_countdown", func(s *Settings) int { return s.World.Countdown }, func(s *Settings, v int) { s.World.Countdown = v }},
	{"sv_teamdamage", func(s *Settings) int { return b2i(s.World.TeamDamage) }, func(s *Settings, v int) { s.World.TeamDamage = v != 0 }},
	{"sv_powerups", func(s *Settings) int { return b2i(s.World.Powerups) }, func(s *Settings, v int) { s.World.Powerups = v != 0 }},
	{"sv_teambalance_time", func(s *Settings) int { return s.World.TeambalanceTime }, func(s *Settings, v int) { s.World.TeambalanceTime = v }},
	{"sv_player_slots", func(s *Settings) int { return s.World.PlayerSlots }, func(s *Settings, v int) { s.World.PlayerSlots = v }},
	{"sv_respawn_delay_tdm", func(s *Settings) int { return s.World.RespawnDelayTDM }, func(s *Settings, v int) { s.World.RespawnDelayTDM = v }},
	{"sv_match_swap", func(s *Settings) int { return b2i(s.World.MatchSwap) }, func(s *Settings, v int) { s.World.MatchSwap = v != 0 }},
	{"sv_matches_per_map", func(s *Settings) int { return s.World.MatchesPerMap }, func(s *Settings, v int) { s.World.MatchesPerMap = v }},
	{"sv_strict_spectate_mode", func(s *Settings) int { return b2i(s.World.StrictSpectate) }, func(s *Settings, v int) { s.World.StrictSpectate = v != 0 }},
	{"sv_tournament_mode", func(s *Settings) int { return b2i(s.World.TournamentMode) }, func(s *Settings, v int) { s.World.TournamentMode = v != 0 }},
	{"sv_spamprotection", func(s *Settings) int { return b2i(s.World.SpamProtection) }, func(s *Settings, v int) { s.World.SpamProtection = v != 0 }},
	{"sv_high_bandwidth", func(s *Settings) int { return b2i(s.SnapshotRate == 50) }, func(s *Settings, v int) {
		s.SnapshotRate = 25
		if v != 0 {
			s.SnapshotRate = 50
		}
	}},
}

// DefaultSettings are the settings a header's config object is relative to.
func DefaultSettings() Settings {
	return Settings{World: world.DefaultConfig(), SnapshotRate: 25}
}

// ConfigKVs returns the header config entries of s that differ from
// DefaultSettings, plus the given extra entries (informative keys).
func ConfigKVs(s Settings, extra ...teehist.KV) []teehist.KV {
	def := DefaultSettings()
	var out []teehist.KV
	for _, f := range fields {
		if v := f.get(&s); v != f.get(&def) {
			out = append(out, teehist.KV{Key: f.key, Value: strconv.Itoa(v)})
		}
	}
	return append(out, extra...)
}

// TuningKVs returns the tuning entries (value ×100) that differ from the default.
func TuningKVs(t world.Tuning) []teehist.KV {
	def := world.DefaultTuning()
	a, d := t.Ints(), def.Ints()
	var out []teehist.KV
	for i := range a {
		if a[i] != d[i] {
			out = append(out, teehist.KV{Key: world.TuneNames[i], Value: strconv.Itoa(int(a[i]))})
		}
	}
	return out
}

// ParseSettings reads Settings from a header; unknown keys are ignored
// (they do not affect the world).
func ParseSettings(h *teehist.Header) (Settings, error) {
	s := DefaultSettings()
	for _, kv := range h.Config {
		for _, f := range fields {
			if f.key == kv.Key {
				v, err := strconv.Atoi(kv.Value)
				if err != nil {
					return s, fmt.Errorf("config %s=%q: %v", kv.Key, kv.Value, err)
				}
				f.set(&s, v)
			}
		}
	}
	if len(h.Tuning) > 0 {
		return s, fmt.Errorf("recorded tuning %v differs from the default; replay supports default tuning only", h.Tuning)
	}
	return s, nil
}

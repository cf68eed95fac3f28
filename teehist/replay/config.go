package replay

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"twserver/teehist"
	"twserver/world"
	"twserver/world/tuning"
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

// svNames maps world.Config fields to the familiar sv_* names. Fields
// without an entry are written as "twserver_" + the field name, so a new
// world setting is recorded (and replayed) even before it gets a name here.
var svNames = map[string]string{
	"GameType":         "sv_gametype",
	"ScoreLimit":       "sv_scorelimit",
	"TimeLimit":        "sv_timelimit",
	"Warmup":           "sv_warmup",
	"Countdown":        "sv_countdown",
	"TeamDamage":       "sv_teamdamage",
	"Powerups":         "sv_powerups",
	"TeambalanceTime":  "sv_teambalance_time",
	"PlayerSlots":      "sv_player_slots",
	"RespawnDelayTDM":  "sv_respawn_delay_tdm",
	"MatchSwap":        "sv_match_swap",
	"MatchesPerMap":    "sv_matches_per_map",
	"StrictSpectate":   "sv_strict_spectate_mode",
	"TournamentMode":   "sv_tournament_mode",
	"SpamProtection":   "sv_spamprotection",
	"PlayerReadyMode":  "sv_player_ready_mode",
	"InactiveKickTime": "sv_inactivekick_time",
	"InactiveKick":     "sv_inactivekick",
	"InactiveKickSpec": "sv_inactivekick_spec",
	"MaxClients":       "sv_max_clients",
}

// gameTypeField is the world.Config field recorded by its sv_gametype name
// ("tdm", "ctf", "lms", "lts"; older files hold the GameType number).
const gameTypeField = "GameType"

// parseGameType reads a recorded sv_gametype: a name or a GameType number.
func parseGameType(v string) (int64, bool) {
	if x, err := strconv.ParseInt(v, 10, 64); err == nil {
		return x, x >= int64(world.GameDM) && x <= int64(world.GameLTS)
	}
	gt := world.ParseGameType(v)
	return int64(gt), strings.EqualFold(gt.Name(), v)
}

// keyHighBandwidth is the key of Settings.SnapshotRate (1: 50 per second).
const keyHighBandwidth = "sv_high_bandwidth"

// configKey returns the header key of world.Config field f.
func configKey(f reflect.StructField) string {
	if n, ok := svNames[f.Name]; ok {
		return n
	}
	return "twserver_" + f.Name
}

// fieldInt reads an int or bool field as an int (bools as 0/1); ok is false
// for kinds a header value cannot hold.
func fieldInt(v reflect.Value) (int64, bool) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return 1, true
		}
		return 0, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	}
	return 0, false
}

func setFieldInt(v reflect.Value, x int64) bool {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(x != 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.OverflowInt(x) {
			return false
		}
		v.SetInt(x)
	default:
		return false
	}
	return true
}

// DefaultSettings are the settings a header's config object is relative to.
func DefaultSettings() Settings {
	return Settings{World: world.DefaultConfig(), SnapshotRate: 25}
}

// ConfigKVs returns the header config entries of s that differ from
// DefaultSettings (every field of world.Config, by reflection), plus the
// given extra entries (informative keys).
func ConfigKVs(s Settings, extra ...teehist.KV) []teehist.KV {
	def := DefaultSettings()
	var out []teehist.KV
	cur, dv := reflect.ValueOf(s.World), reflect.ValueOf(def.World)
	t := cur.Type()
	for i := range t.NumField() {
		a, ok1 := fieldInt(cur.Field(i))
		b, ok2 := fieldInt(dv.Field(i))
		if ok1 && ok2 && a != b {
			v := strconv.FormatInt(a, 10)
			if t.Field(i).Name == gameTypeField {
				v = strings.ToLower(s.World.GameType.Name())
			}
			out = append(out, teehist.KV{Key: configKey(t.Field(i)), Value: v})
		}
	}
	if s.SnapshotRate != def.SnapshotRate {
		v := "0"
		if s.SnapshotRate == 50 {
			v = "1"
		}
		out = append(out, teehist.KV{Key: keyHighBandwidth, Value: v})
	}
	return append(out, extra...)
}

// TuningKVs returns the tuning entries (value ×100) that differ from the default.
func TuningKVs(t tuning.Params) []teehist.KV {
	def := tuning.Default()
	a, d := t.Ints(), def.Ints()
	var out []teehist.KV
	for i := range a {
		if a[i] != d[i] {
			out = append(out, teehist.KV{Key: tuning.Names[i], Value: strconv.Itoa(int(a[i]))})
		}
	}
	return out
}

// ParseSettings reads Settings from a header; unknown keys are ignored
// (they do not affect the world).
func ParseSettings(h *teehist.Header) (Settings, error) {
	s := DefaultSettings()
	v := reflect.ValueOf(&s.World).Elem()
	t := v.Type()
	for _, kv := range h.Config {
		if kv.Key == keyHighBandwidth {
			s.SnapshotRate = 25
			if kv.Value != "0" {
				s.SnapshotRate = 50
			}
			continue
		}
		for i := range t.NumField() {
			if configKey(t.Field(i)) != kv.Key {
				continue
			}
			x, err := strconv.ParseInt(kv.Value, 10, 64)
			if t.Field(i).Name == gameTypeField {
				var ok bool
				if x, ok = parseGameType(kv.Value); ok {
					err = nil
				} else {
					err = strconv.ErrSyntax
				}
			}
			if err != nil || !setFieldInt(v.Field(i), x) {
				return s, fmt.Errorf("config %s=%q: not a valid value", kv.Key, kv.Value)
			}
		}
	}
	if len(h.Tuning) > 0 {
		return s, fmt.Errorf("recorded tuning %v differs from the default; replay supports default tuning only", h.Tuning)
	}
	return s, nil
}

// mapLoadFields are the world.Config fields read only when a map is loaded
// (World.SetRules keeps them): a recorded change of one takes effect with
// the next game, which is a new recording.
var mapLoadFields = map[string]bool{"GameType": true, "Warmup": true, "Powerups": true, "MatchesPerMap": true, "MaxClients": true}

// ApplySetting applies a setting changed on the console while the world
// runs, as recorded (CONSOLE_COMMAND with its header key and the value as
// the console stored it, an integer read with IntArg): a game rule of
// s.World (the caller passes it to World.SetRules) or the snapshot rate
// (sv_high_bandwidth). It reports false for a name that changes nothing
// the world plays with at run time. The server applies its console's
// settings through it too, so the replay cannot read them differently.
func (s *Settings) ApplySetting(name, value string) bool {
	if name == keyHighBandwidth {
		s.SnapshotRate = 25
		if IntArg(value) != 0 {
			s.SnapshotRate = 50
		}
		return true
	}
	v := reflect.ValueOf(&s.World).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if configKey(f) != name || mapLoadFields[f.Name] {
			continue
		}
		return setFieldInt(v.Field(i), int64(IntArg(value)))
	}
	return false
}

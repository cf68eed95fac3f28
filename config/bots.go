package config

import "unicode/utf8"

// Bounds of the [bots] section.
const (
	// MaxBotNames bounds the names of bots.names.
	MaxBotNames = 64
	// MaxBotNameLen is the longest bot name in bytes (the 0.7 name limit, 15
	// bytes plus the terminator).
	MaxBotNameLen = 15
)

// AllBots is the word bot_remove takes for every bot, so no bot may be
// named it: removing that one bot would remove them all.
const AllBots = "all"

// BotsConfig is the [bots] section: twserver's own players that play and
// say they are bots (PLAYERFLAG_BOT; owned by package botslots).
type BotsConfig struct {
	// Fill keeps at least Fill participants while a human is connected:
	// bots join while humans are fewer, one leaves per arriving human.
	Fill int `toml:"fill"`
	// Max bounds the bots at once (fill and bot_add).
	Max int `toml:"max"`
	// Skill is the skill of the bots that fill: easy, normal or hard.
	Skill string `toml:"skill"`
	// Names are the names bots take in turn.
	Names []string `toml:"names"`
}

// DefaultBotNames are the names bots take when bots.names is not set.
var DefaultBotNames = []string{
	"Pebble", "Juniper", "Quartz", "Marble", "Sprocket", "Bramble", "Cobalt", "Thistle",
	"Nimbus", "Tinder", "Gravel", "Lichen", "Ember", "Sorrel", "Basalt", "Wren",
}

func defaultBots() BotsConfig {
	return BotsConfig{Max: 8, Skill: "normal", Names: append([]string(nil), DefaultBotNames...)}
}

func (b *BotsConfig) validate() error {
	if b.Fill < 0 || b.Fill > MaxClientsLimit {
		return invalid("bots.fill", "%d is outside 0..%d", b.Fill, MaxClientsLimit)
	}
	if b.Max < 0 || b.Max > MaxClientsLimit {
		return invalid("bots.max", "%d is outside 0..%d", b.Max, MaxClientsLimit)
	}
	switch b.Skill {
	case "easy", "normal", "hard":
	default:
		return invalid("bots.skill", "%q: must be easy, normal or hard", b.Skill)
	}
	if len(b.Names) == 0 || len(b.Names) > MaxBotNames {
		return invalid("bots.names", "%d names: must be 1..%d", len(b.Names), MaxBotNames)
	}
	for _, n := range b.Names {
		if n == "" || len(n) > MaxBotNameLen || !utf8.ValidString(n) {
			return invalid("bots.names", "%q: a name is 1..%d bytes of UTF-8", n, MaxBotNameLen)
		}
		if n == AllBots {
			return invalid("bots.names", "%q is bot_remove's word for every bot, not a name", n)
		}
		for _, r := range n {
			if r < 0x20 {
				return invalid("bots.names", "%q: control character", n)
			}
		}
	}
	return nil
}

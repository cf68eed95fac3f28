package console

import "time"

// Console output for side channels (the econ): the game loop hands every
// line the 0.7.5 server prints on its console (command replies and the
// event lines existing tools parse, ops-facts section 2) to the installed
// sinks, with its system name and level. A caller formats a line only when
// On says some sink wants its level, so a server without econ does no work
// for them.

// Console output levels of the 0.7.5 console (OUTPUT_LEVEL_*): a sink
// configured for level L gets the lines of level L and below.
const (
	// LevelStandard (0): command replies, joins, leaves, drops, votes.
	LevelStandard = 0
	// LevelAddInfo (1): chat, "player is ready", rcon commands.
	LevelAddInfo = 1
	// LevelDebug (2): kills, team joins, flag events, pickups.
	LevelDebug = 2
)

// Line is one line of console output.
type Line struct {
	// Time is when the line was printed.
	Time time.Time
	// Level is the line's output level (LevelStandard, LevelAddInfo, LevelDebug).
	Level int
	// System is the reference's system name ("server", "game", "chat", ...).
	System string
	// Text is the message, without time or system prefix.
	Text string
}

type sink struct {
	level int
	f     func(Line)
}

// Sinks are the receivers of console output lines. Add them before the
// lines start; Print calls them on the printing goroutine (the game loop).
type Sinks struct {
	sinks []sink
	level int // highest level any sink wants (valid when sinks is not empty)
}

// Add installs f to receive every line of level maxLevel and below. f must
// return at once without blocking.
func (k *Sinks) Add(maxLevel int, f func(Line)) {
	if len(k.sinks) == 0 || maxLevel > k.level {
		k.level = maxLevel
	}
	k.sinks = append(k.sinks, sink{level: maxLevel, f: f})
}

// Any reports whether a sink is installed.
func (k *Sinks) Any() bool { return len(k.sinks) > 0 }

// On reports whether some sink wants lines of level.
func (k *Sinks) On(level int) bool { return len(k.sinks) > 0 && level <= k.level }

// Print hands one line, stamped now, to the sinks that want its level.
func (k *Sinks) Print(level int, system, text string) {
	if !k.On(level) {
		return
	}
	l := Line{Time: time.Now(), Level: level, System: system, Text: text}
	for _, s := range k.sinks {
		if level <= s.level {
			s.f(l)
		}
	}
}

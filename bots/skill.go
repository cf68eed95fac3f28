package bots

import "fmt"

// Skill is how well a bot plays: its reaction time, aim error and use of
// the hook in a fight.
type Skill uint8

// The three skill levels.
const (
	Easy   Skill = iota // slow to react, wide aim error, no hook in a fight, no lead
	Normal              // medium reaction, some aim error, hooks sometimes
	Hard                // quick, precise, leads its targets and hooks them
)

// ParseSkill parses "easy", "normal" or "hard".
func ParseSkill(s string) (Skill, error) {
	switch s {
	case "easy":
		return Easy, nil
	case "normal":
		return Normal, nil
	case "hard":
		return Hard, nil
	}
	return Normal, fmt.Errorf("bots: unknown skill %q (want easy, normal or hard)", s)
}

// String returns the skill's name as ParseSkill accepts it.
func (s Skill) String() string {
	switch s {
	case Easy:
		return "easy"
	case Normal:
		return "normal"
	case Hard:
		return "hard"
	}
	return fmt.Sprintf("skill(%d)", uint8(s))
}

// skillParams are the numbers behind a skill level.
type skillParams struct {
	reaction  int32   // ticks an enemy must be in sight before the bot fires at it
	aimNoise  float32 // max aim error in radians (uniform, re-drawn every few ticks)
	lead      float32 // 0..1: how much of the target's motion the aim leads
	hookFight int     // percent of chances to hook an enemy in a fight
	fireGap   int32   // extra ticks between shots
	switchLag int32   // ticks before it changes weapon for the distance
}

var skills = [3]skillParams{
	Easy:   {reaction: 30, aimNoise: 0.32, lead: 0, hookFight: 0, fireGap: 12, switchLag: 40},
	Normal: {reaction: 12, aimNoise: 0.2, lead: 0.6, hookFight: 30, fireGap: 3, switchLag: 12},
	Hard:   {reaction: 4, aimNoise: 0.03, lead: 1, hookFight: 70, fireGap: 0, switchLag: 3},
}

func (s Skill) params() *skillParams {
	if int(s) >= len(skills) {
		return &skills[Normal]
	}
	return &skills[s]
}

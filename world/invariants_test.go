package world

import (
	"fmt"
	"testing"

	"twserver/snap"
)

// validItem applies the 0.7.5 client's object validation (own fields only)
// and returns a description of the first violation.
func validItem(typ uint16, d []int32) string {
	in := func(v, lo, hi int32) bool { return v >= lo && v <= hi }
	if int(typ) >= len(ObjSizes) || len(d) != ObjSizes[typ] {
		return "size"
	}
	switch typ {
	case ObjProjectile:
		if !in(d[4], 0, 5) || d[5] < 0 {
			return "projectile type/tick"
		}
	case ObjLaser:
		if d[4] < 0 {
			return "laser tick"
		}
	case ObjPickup:
		if !in(d[2], 0, 7) {
			return "pickup type"
		}
	case ObjFlag:
		if !in(d[2], 0, 1) {
			return "flag team"
		}
	case ObjGameData:
		if d[0] < 0 || d[1]&^0x3f != 0 || d[2] < 0 {
			return "game data"
		}
	case ObjGameDataFlag:
		if !in(d[0], -3, 63) || !in(d[1], -3, 63) || d[2] < 0 || d[3] < 0 {
			return "game data flag"
		}
	case ObjCharacter:
		if !in(d[CharHealth], 0, 10) || !in(d[CharArmor], 0, 10) || !in(d[CharWeapon], 0, 5) ||
			!in(d[CharEmote], 0, 5) || d[CharAttackTick] < 0 || d[CharTriggeredEvent]&^0x1f != 0 {
			return "character"
		}
	case ObjPlayerInfo:
		if d[0]&^0x7f != 0 {
			return "player flags"
		}
	case ObjSpectatorInfo:
		if !in(d[0], 0, 3) || !in(d[1], -1, 63) {
			return "spectator info"
		}
	case EventDeath:
		if !in(d[2], 0, 63) {
			return "death client"
		}
	case EventSoundWorld:
		if !in(d[2], 0, NumSounds-1) {
			return "sound id"
		}
	case EventDamage:
		if !in(d[2], 0, 63) || !in(d[4], 0, 9) || !in(d[5], 0, 9) || !in(d[6], 0, 1) {
			return "damage"
		}
	}
	return ""
}

// checkInvariants verifies the world's internal consistency.
func checkInvariants(t *testing.T, w *World) {
	t.Helper()
	var size [2]int
	seen := map[*Character]bool{}
	for _, c := range w.chars {
		if c.inWorld {
			if seen[c] {
				t.Fatalf("tick %d: character %d twice in the list", w.tick, c.p.cid)
			}
			seen[c] = true
		}
	}
	for cid, p := range w.players {
		if p == nil {
			if w.core.Characters[cid] != nil {
				t.Fatalf("tick %d: core of absent player %d", w.tick, cid)
			}
			continue
		}
		if p.team != TeamSpectators {
			size[p.team]++
		}
		c := p.character()
		if (c != nil) != (w.core.Characters[cid] != nil) || (c != nil && !seen[c]) {
			t.Fatalf("tick %d: player %d alive %v core %v listed %v", w.tick, cid, c != nil, w.core.Characters[cid] != nil, seen[c])
		}
		if c != nil {
			if p.team == TeamSpectators {
				t.Fatalf("tick %d: spectator %d has a character", w.tick, cid)
			}
			if c.health < 1 || c.health > 10 || c.armor < 0 || c.armor > 10 || !c.weapons[WeaponHammer].got {
				t.Fatalf("tick %d: character %d health %d armor %d", w.tick, cid, c.health, c.armor)
			}
			for wp, s := range c.weapons {
				if s.ammo > maxAmmo || (s.got && wp != WeaponHammer && wp != WeaponNinja && s.ammo < 0) {
					t.Fatalf("tick %d: character %d weapon %d ammo %d", w.tick, cid, wp, s.ammo)
				}
			}
			if !c.weapons[c.active].got {
				t.Fatalf("tick %d: character %d holds weapon %d it does not own", w.tick, cid, c.active)
			}
		}
	}
	if size != w.ctrl.teamSize {
		t.Fatalf("tick %d: team sizes %v, counted %v", w.tick, w.ctrl.teamSize, size)
	}
	for _, f := range w.flags {
		if f != nil && f.carrier != nil && (!f.carrier.alive || f.atStand) {
			t.Fatalf("tick %d: flag %d carried by a dead character or at stand", w.tick, f.team)
		}
	}
	if w.ids.inUse != len(w.projs)+len(w.lasers)+len(w.pickups)+len(w.flagLst)+countCharIDs(w) {
		t.Fatalf("tick %d: %d snapshot ids in use", w.tick, w.ids.inUse)
	}
}

func countCharIDs(w *World) int {
	n := 0
	for _, p := range w.players {
		if p != nil && p.char != nil && p.char.snapID >= 0 {
			n++
		}
	}
	return n
}

// TestChaos drives every game type with scripted bots and random operator
// actions (team changes, kills, leaves and joins, pauses, restarts) and
// checks the world invariants and the client-side validity of every
// snapshot item each snapshot tick.
func TestChaos(t *testing.T) {
	for _, gt := range []GameType{GameDM, GameTDM, GameCTF, GameLMS, GameLTS} {
		t.Run(gt.Name(), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.GameType = gt
			cfg.ScoreLimit = 30
			cfg.PlayerSlots = 12
			cfg.StrictSpectate = gt == GameLMS || gt == GameLTS
			rows := append([]string(nil), arenaRows...)
			if gt == GameCTF {
				rows[21] = "#......H..r........................b....H......#"
			}
			w := newTestWorld(t, cfg, rows...)
			var players [16]scriptPlayer
			var ctl scriptRand
			ctl.s = 0xdeadbeef + uint32(gt)
			for i := range players {
				players[i].r.s = uint32(0x51ed27 * (i + 7))
				if i < 12 {
					w.AddPlayer(i, PlayerInfo{})
				}
			}
			var b, b2 snap.Builder
			b.Sizes, b2.Sizes = snap.Sizes7, snap.Sizes7
			var s, s2 snap.Snapshot
			var round SnapRound // SnapWith must build what Snap builds
			var kills, grabs int
			for k := 0; k < 4000; k++ {
				next := w.tick + 1
				if ctl.intn(40) == 0 {
					cid := ctl.intn(16)
					switch ctl.intn(9) {
					case 0:
						w.SetTeam(cid, ctl.intn(3)-1)
					case 1:
						w.Kill(cid)
					case 2:
						w.RemovePlayer(cid)
					case 3:
						w.AddPlayer(cid, PlayerInfo{Spectator: ctl.intn(4) == 0, Bot: cid%5 == 0})
						w.SetAuthed(cid, cid%3 == 0)
					case 4:
						w.SetSpectatorMode(cid, ctl.intn(4), ctl.intn(18)-1)
					case 5:
						if ctl.intn(10) == 0 {
							w.Pause(ctl.intn(3))
						}
					case 6:
						if ctl.intn(20) == 0 {
							w.Restart(ctl.intn(2))
						}
					case 7:
						w.ForceTeam(cid, ctl.intn(3)-1)
					case 8:
						if ctl.intn(10) == 0 {
							w.ShuffleTeams()
						}
					}
				}
				for cid := range players {
					if w.HasPlayer(cid) {
						in := players[cid].step(w, cid, next)
						w.SetLatency(cid, 10+3*cid+k%50)
						w.DirectInput(cid, in)
						w.SetInput(cid, in)
					}
				}
				w.Tick()
				w.DrainEvents(func(e Event) {
					if e.Kind == EvGameMsg && (e.Args[0] < 0 || e.Args[0] > GameMsgGamePaused) {
						t.Fatalf("bad game message %v", e.Args)
					}
					if e.Kind == EvKillMsg && (e.Args[0] < -2 || e.Args[1] < 0 || e.Args[2] < -3 || e.Args[2] > 5) {
						t.Fatalf("kill message out of range %v", e.Args)
					}
					if e.Kind == EvKillMsg && e.Args[2] >= 0 {
						kills++
					}
					if e.Kind == EvGameMsg && e.Args[0] == GameMsgCTFGrab {
						grabs++
					}
				})
				checkInvariants(t, w)
				if w.tick%2 != 0 {
					continue
				}
				w.PrepareSnap(&round)
				for v := -1; v < 16; v++ {
					if v >= 0 && !w.HasPlayer(v) {
						continue
					}
					b2.Reset()
					if err := w.SnapWith(&round, v, &b2); err != nil {
						t.Fatalf("tick %d viewer %d: SnapWith: %v", w.tick, v, err)
					}
					b2.Finish(&s2)
					b.Reset()
					if err := w.Snap(v, &b); err != nil {
						t.Fatalf("tick %d viewer %d: %v", w.tick, v, err)
					}
					b.Finish(&s)
					if !s.Equal(&s2) {
						t.Fatalf("tick %d viewer %d: SnapWith built %v, Snap %v", w.tick, v, snapItems(&s2), snapItems(&s))
					}
					for i := 0; i < s.NumItems(); i++ {
						it := s.Item(i)
						if msg := validItem(it.Type, it.Data); msg != "" {
							t.Fatalf("tick %d viewer %d: item %d/%d invalid (%s): %v", w.tick, v, it.Type, it.ID, msg, it.Data)
						}
					}
				}
				w.PostSnap()
			}
			t.Logf("weapon kills %d, flag grabs %d", kills, grabs)
			if kills < 3 {
				t.Fatalf("only %d weapon kills: the run did not exercise the game", kills)
			}
		})
	}
}

// snapItems lists s's items for a failure message.
func snapItems(s *snap.Snapshot) []string {
	var out []string
	for i := 0; i < s.NumItems(); i++ {
		it := s.Item(i)
		out = append(out, fmt.Sprintf("%d/%d:%v", it.Type, it.ID, it.Data))
	}
	return out
}

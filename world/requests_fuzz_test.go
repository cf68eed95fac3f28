package world

import (
	"encoding/binary"
	"testing"

	"twserver/snap"
)

// fuzzReader hands out the fuzzer's bytes as values; it yields zeros once
// the data is used up.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *fuzzReader) int32() int32 {
	var buf [4]byte
	n := copy(buf[:], r.b)
	r.b = r.b[n:]
	return int32(binary.LittleEndian.Uint32(buf[:]))
}

// cid is a client id, mostly valid, sometimes out of range either way.
func (r *fuzzReader) cid() int {
	switch v := r.byte(); {
	case v < 200:
		return int(v % 10)
	case v < 230:
		return int(r.int32())
	default:
		return MaxClients + int(v) - 231
	}
}

// small is a team, mode or id near the valid range, sometimes huge.
func (r *fuzzReader) small() int {
	v := r.byte()
	if v >= 240 {
		return int(r.int32())
	}
	return int(v%12) - 3
}

func (r *fuzzReader) str() string {
	n := int(r.byte()) % 40
	if n > len(r.b) {
		n = len(r.b)
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// FuzzClientRequests drives a world with everything a client (and an
// operator) can send, with hostile values: out-of-range client ids, teams,
// spectator modes and ids, raw input words, arbitrary name bytes, requests
// before entering and after leaving. The world must not panic, must keep
// its invariants (checkInvariants) and must build valid snapshots for every
// viewer.
func FuzzClientRequests(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte("\x01\x00\x00\x03\x01\x01\x02\x07\x02\x01\x05\x0c\x01\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("\x02\x00\x01\x04\x00\x03\x08\x00\xff\xff\xff\x7f\x06\xe6\x00\x00\x00\x80\x05\xf0\xff\xff\xff\xff\x09\x10"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := fuzzReader{data}
		cfg := DefaultConfig()
		mode := r.byte()
		cfg.GameType = GameType(mode % 5)
		cfg.PlayerReadyMode = mode&4 != 0
		cfg.TournamentMode = mode&8 != 0
		cfg.PlayerSlots = 4
		rows := append([]string(nil), arenaRows...)
		rows[21] = "#......H..r........................b....H......#"
		w := newTestWorld(t, cfg, rows...)
		var b snap.Builder
		b.Sizes = snap.Sizes7
		var s snap.Snapshot
		ticks := 0
		for len(r.b) > 0 && ticks < 400 {
			switch r.byte() % 14 {
			case 0:
				w.ConnectPlayer(r.cid(), PlayerInfo{Spectator: r.byte()&1 != 0})
			case 1:
				cid := r.cid()
				info := PlayerInfo{Name: r.str(), Clan: r.str(), Country: r.int32()}
				for i := range info.SkinPartNames {
					info.SkinPartNames[i] = r.str()
					info.SkinPartColors[i] = r.int32()
					info.UseCustomColors[i] = r.byte()&1 != 0
				}
				w.EnterPlayer(cid, info)
			case 2:
				var words [SizePlayerInput]int32
				cid := r.cid()
				for i := range words {
					words[i] = int32(int8(r.byte())) // mostly small, as real inputs
				}
				if r.byte()&1 != 0 {
					words[1], words[2] = r.int32(), r.int32()
				}
				in := Input{Direction: words[0], TargetX: words[1], TargetY: words[2], Jump: words[3],
					Fire: words[4], Hook: words[5], PlayerFlags: words[6], WantedWeapon: words[7],
					NextWeapon: words[8], PrevWeapon: words[9]}
				// the 0.7.5 validator's ranges, written out independently
				bit := func(v int32) bool { return v == 0 || v == 1 }
				valid := words[0] >= -1 && words[0] <= 1 && bit(words[3]) && bit(words[5]) &&
					words[6] >= 0 && words[6] <= 0x7f && words[7] >= 0 && words[7] <= 5
				if dec, err := DecodeInput(words[:]); (err == nil) != valid || (err == nil && dec != in) {
					t.Fatalf("DecodeInput(%v) = %+v, %v", words, dec, err)
				}
				w.DirectInput(cid, in) // invalid ones must be dropped
				w.SetInput(cid, in)
			case 3:
				w.SetTeam(r.cid(), r.small())
			case 4:
				w.Kill(r.cid())
			case 5:
				w.SetSpectatorMode(r.cid(), r.small(), r.small())
			case 6:
				w.ReadyChange(r.cid())
			case 7:
				w.RemovePlayer(r.cid())
			case 8:
				w.SetLatency(r.cid(), int(r.int32()))
				w.SetAuthed(r.cid(), r.byte()&1 != 0)
			case 9:
				switch r.byte() % 6 {
				case 0:
					w.ForceTeamDelay(r.cid(), r.small(), int(r.int32()))
				case 1:
					w.SetTeamAll(r.small())
				case 2:
					w.Pause(r.small())
				case 3:
					w.Restart(r.small())
				case 4:
					w.ShuffleTeams()
				case 5:
					w.SwapTeams()
				}
			default:
				for n := int(r.byte()%8) + 1; n > 0; n-- {
					ticks++
					w.Tick()
					w.DrainEvents(func(Event) {})
					checkInvariants(t, w)
					if w.CurrentTick()%2 != 0 {
						continue
					}
					for v := -1; v < MaxClients; v++ {
						if v >= 0 && !w.InGame(v) {
							if w.Snap(v, &b) != ErrNoPlayer {
								t.Fatalf("Snap for absent viewer %d did not fail", v)
							}
							continue
						}
						b.Reset()
						if err := w.Snap(v, &b); err != nil {
							t.Fatalf("tick %d viewer %d: %v", w.CurrentTick(), v, err)
						}
						b.Finish(&s)
						for i := 0; i < s.NumItems(); i++ {
							if it := s.Item(i); validItem(it.Type, it.Data) != "" {
								t.Fatalf("tick %d viewer %d: item %d/%d invalid: %v", w.CurrentTick(), v, it.Type, it.ID, it.Data)
							}
						}
						if pos, ok := w.CharacterPos(v); ok != w.Alive(v) {
							t.Fatalf("tick %d: CharacterPos(%d) = %v, %v", w.CurrentTick(), v, pos, ok)
						}
					}
					w.PostSnap()
				}
			}
		}
	})
}

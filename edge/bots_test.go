package edge

import (
	"bytes"
	"testing"

	"twserver/netproto"
)

// TestInfoBots: the 0.7 info gives a bot client type 2 (3 for a bot
// spectator) and counts it; the 0.6 info lists and counts humans only;
// without bots HumansOnly hands back the rows untouched.
func TestInfoBots(t *testing.T) {
	rows := []InfoPlayer{
		{Name: "alice", Country: -1},
		{Name: "Pebble", Country: -1, Bot: true},
		{Name: "watcher", Country: -1, Spectator: true},
		{Name: "Quartz", Country: -1, Bot: true, Spectator: true},
	}
	hd := InfoHead{Name: "t", GameType: "DM", MapName: "m", NumPlayers: 2, MaxPlayers: 8, MaxClients: 8}
	var u netproto.Unpacker
	u.Reset(BuildInfo7(hd, rows))
	for range 5 {
		u.GetString()
	}
	u.GetInt()
	u.GetInt()
	np, _, nc, _ := u.GetInt(), u.GetInt(), u.GetInt(), u.GetInt()
	var types []int32
	for range nc {
		u.GetString()
		u.GetString()
		u.GetInt()
		u.GetInt()
		types = append(types, u.GetInt())
	}
	if u.Err() != nil || np != 2 || nc != 4 || len(types) != 4 || types[0] != 0 || types[1] != 2 || types[2] != 1 || types[3] != 3 {
		t.Errorf("0.7 info: %d players, %d clients, types %v (%v); want 2, 4, [0 2 1 3]", np, nc, types, u.Err())
	}

	h2, humans := HumansOnly(hd, rows)
	if h2.NumPlayers != 1 || len(humans) != 2 || humans[0].Name != "alice" || humans[1].Name != "watcher" {
		t.Errorf("HumansOnly: %d players, rows %+v", h2.NumPlayers, humans)
	}
	if _, same := HumansOnly(hd, humans); &same[0] != &humans[0] {
		t.Errorf("HumansOnly copied rows without a bot")
	}
	six := BuildInfo6(hd, rows)
	want := BuildInfo6(h2, humans)
	if !bytes.Equal(six.vanilla, want.vanilla) || !bytes.Equal(six.extHead, want.extHead) || len(six.extRows) != 2 {
		t.Errorf("the 0.6 info is not the humans' alone: %q vs %q, %d rows", six.vanilla, want.vanilla, len(six.extRows))
	}
	if bytes.Contains(six.vanilla, []byte("Pebble")) || !bytes.Contains(six.vanilla, []byte("alice")) {
		t.Errorf("0.6 info: %q", six.vanilla)
	}
}

// TestVersions: a build's version follows the game's in both infos, whose
// first three bytes the browsers' compatible-version filters read; without
// a build the game versions stand alone.
func TestVersions(t *testing.T) {
	v := Versions("0.7.5", "1.2.3")
	if v != [2]string{"0.7.5, twserver 1.2.3", "0.6.4, twserver 1.2.3"} {
		t.Errorf("Versions = %q", v)
	}
	if v := Versions("0.7.5", ""); v != [2]string{"0.7.5", GameVersion6} {
		t.Errorf("Versions without a build = %q", v)
	}
	hd := InfoHead{Name: "s", Version: v[0], Version6: v[1], MapName: "dm1", GameType: "DM", MaxPlayers: 8, MaxClients: 8}
	six := BuildInfo6(hd, nil)
	for _, b := range [][]byte{six.vanilla, six.extHead} {
		if !bytes.HasPrefix(b, []byte("0.6.4, twserver 1.2.3\x00")) {
			t.Errorf("0.6 info starts %q", b[:min(len(b), 30)])
		}
	}
	if hd.Version6 = ""; !bytes.HasPrefix(BuildInfo6(hd, nil).vanilla, []byte(GameVersion6+"\x00")) {
		t.Errorf("0.6 info without Version6 does not start with %q", GameVersion6)
	}
}

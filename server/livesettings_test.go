package server

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/console"
	"twserver/gamemsg"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
)

// TestLiveSettings: settings typed on the console take effect in the
// running game as the reference's do: game rules in the world at once
// (with Sv_GameInfo for the limits), the message of the day, the server
// info and the vote settings to the clients and the browser; sv_gametype
// and sv_warmup at the next map load; the process-bound settings refused
// with a clear line; a vote option that is a setting; the rcon command list
// with the settings.
func TestLiveSettings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts, a, b, c := adminServer(t, nil) // TDM
		others := []*testClient{b, c}
		port, slots := config.Default().Server.Port, config.Default().Server.MaxClients
		runSteps(t, a, others, []consoleStep{
			{"sv_scorelimit", []string{"Value: 20"}},
			{"sv_scorelimit 3", nil},
			{"sv_timelimit 7; sv_scorelimit", []string{"Value: 3"}},
			{`sv_motd "Welcome; have fun"`, nil},
			{"sv_name   Live   name ", nil},
			{"sv_name", []string{"Value: Live name"}},
			{"password secret", nil},
			{"sv_player_slots 2", nil},
			{"sv_teamdamage 1", nil},
			{"sv_high_bandwidth 1", nil},
			{"sv_port 9000", []string{"sv_port cannot change while twserver runs: set it in the configuration and restart (the value stays " +
				itoa(port) + ")"}},
			{"sv_max_clients " + itoa(slots) + "; sv_port " + itoa(port), nil}, // the values they have
			{"sv_max_clients 2; sv_max_clients", []string{
				"sv_max_clients cannot change while twserver runs: set it in the configuration and restart (the value stays " + itoa(slots) + ")", "Value: " + itoa(slots)}},
			{"sv_gametype nosuch", []string{`sv_gametype not changed: invalid value for game.type: "nosuch": must be dm, tdm, ctf, lms or lts`}},
			{"sv_gametype ctf", nil},
			{"sv_warmup 10", nil},
			{"sv_gametype; sv_warmup", []string{"Value: ctf", "Value: 10"}},
			{`add_vote "Limit 10" sv_scorelimit 10`, []string{"added option 'Limit 10' 'sv_scorelimit 10'"}},
		})
		wc := ts.world.Config()
		if wc.ScoreLimit != 3 || wc.TimeLimit != 7 || !wc.TeamDamage || wc.PlayerSlots != 2 || wc.Warmup != 0 ||
			ts.world.GameTypeName() != "TDM" {
			t.Errorf("world after the settings: %s %+v", ts.world.GameTypeName(), wc)
		}
		if gi := gamesOf[*gamemsg.SvGameInfo](b); len(gi) == 0 || gi[len(gi)-1].ScoreLimit != 3 || gi[len(gi)-1].TimeLimit != 7 {
			t.Errorf("bob's Sv_GameInfo: %+v", gi)
		}
		if m := gamesOf[*gamemsg.SvMotd](b); len(m) < 2 || m[len(m)-1].Message != "Welcome; have fun" {
			t.Errorf("bob's Sv_Motd: %+v", m)
		}
		if ss := gamesOf[*gamemsg.SvServerSettings](c); len(ss) == 0 || ss[len(ss)-1].PlayerSlots != 2 {
			t.Errorf("carol's Sv_ServerSettings: %+v", ss)
		}
		u := queryInfo(t, ts.mn, netipFrom("127.0.0.9:5000"))
		_, name, _, _, gt := u.GetString(), u.GetString(), u.GetString(), u.GetString(), u.GetString()
		if flags := u.GetInt(); name != "Live name" || gt != "TDM" || flags != 1 {
			t.Errorf("server info: name %q, game type %q, flags %d", name, gt, flags)
		}
		// the rcon client got the settings for completion, not the econ ones
		if !slices.Contains(a.rconCmds, "sv_scorelimit") || !slices.Contains(a.rconCmds, "password") ||
			slices.Contains(a.rconCmds, "ec_port") || len(a.rconCmds) != len(console.RconCommands()) {
			t.Errorf("%d RCON_CMD_ADD: %q", len(a.rconCmds), a.rconCmds)
		}

		runSteps(t, a, others, []consoleStep{
			{`force_vote option "Limit 10"`, []string{"'0:alice' voted option 'Limit 10' reason='No reason given' cmd='sv_scorelimit 10' force=1"}},
			{"reload", []string{"map changed to twsrv_arena"}},
		})
		runClients(3*time.Second, a, b, c)
		wc = ts.world.Config()
		if ts.world.GameTypeName() != "CTF" || wc.Warmup != 10 || wc.ScoreLimit != 10 || wc.TimeLimit != 7 {
			t.Errorf("world after reload: %s %+v", ts.world.GameTypeName(), wc)
		}
	})
}

// TestRecordLiveSettings: game rules changed on the console are recorded
// (CONSOLE_COMMAND with the value set) and twhist replay applies them at
// the same tick: bob goes to the spectators and cannot come back, as a live
// "sv_player_slots 1" leaves only alice's slot, and a live score limit is
// in the world. The same file replayed without that command diverges.
func TestRecordLiveSettings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts, dir := startRecording(t)
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		a.direction, b.direction = 1, -1
		play := func(d time.Duration) { runClients(d, a, b) }
		play(time.Second)
		for _, cmd := range []string{"sv_player_slots 1", "sv_scorelimit 7; sv_high_bandwidth 1", "password nothere"} {
			if _, err := io.WriteString(ts.cons, cmd+"\n"); err != nil {
				t.Fatal(err)
			}
			play(300 * time.Millisecond)
		}
		b.sendGame(&gamemsg.ClSetTeam{Team: -1})
		play(3500 * time.Millisecond) // past the 3 s between team changes
		b.sendGame(&gamemsg.ClSetTeam{Team: 0})
		play(2 * time.Second)
		if ts.world.Team(1) != -1 || ts.world.Config().ScoreLimit != 7 {
			t.Fatalf("bob in team %d, score limit %d: the live settings did not apply", ts.world.Team(1), ts.world.Config().ScoreLimit)
		}
		ts.stop(t)
		files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
		if len(files) != 1 {
			t.Fatalf("%d files", len(files))
		}
		_, res := replayFile(t, files[0])
		t.Logf("%d ticks, %d positions, ignored %v", res.Ticks, res.Compared, res.Ignored)
		if res.Divergence != nil || !res.Finished || res.Compared < 100 || len(res.Ignored) != 0 {
			t.Errorf("divergence %v, finished %v, %d compared, ignored %v", res.Divergence, res.Finished, res.Compared, res.Ignored)
		}
		if data, _ := os.ReadFile(files[0]); bytes.Contains(data, []byte("nothere")) {
			t.Errorf("the recording holds the password")
		}

		// without the setting's command, bob comes back
		f, err := os.Open(files[0])
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := teehist.NewReader(f)
		h, err := r.ReadHeader()
		if err != nil {
			t.Fatal(err)
		}
		e, err := replay.New(h, twmap.Default())
		if err != nil {
			t.Fatal(err)
		}
		var msg teehist.Message
		for r.Next(&msg) == nil {
			if msg.Kind == teehist.KindConsoleCommand && msg.Cmd == "sv_player_slots" {
				continue
			}
			if e.Feed(&msg) {
				break
			}
		}
		if d := e.Result().Divergence; d == nil || d.CID != 1 {
			t.Errorf("replay without sv_player_slots 1: divergence %v, want one of bob", d)
		}
	})
}

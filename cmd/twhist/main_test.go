package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
	"twserver/world/twmap"
	"twserver/worldstate"
)

// recording writes a short one-player game on the embedded map; with
// tamper, one recorded position is off by one.
func recording(t *testing.T, tamper bool) string {
	t.Helper()
	return recordingCkpt(t, tamper, false)
}

// recordingCkpt is recording with a checkpoint every second (the world's
// state before every 50th tick, as the recorder writes it); tamperCkpt
// writes the one before tick 150 of a world with the player logged in.
func recordingCkpt(t *testing.T, tamper, tamperCkpt bool) string {
	t.Helper()
	var ck worldstate.Writer
	m := twmap.Default()
	cfg := world.DefaultConfig()
	w, err := world.New(m, cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	e := teehist.NewEncoder()
	e.WriteHeader(&teehist.Header{GameUUID: teehist.NameUUID("twhist"), StartTime: time.Unix(0, 0), MapName: m.Name,
		MapSize: m.Size, MapSHA256: m.SHA256, MapCRC: m.CRC, PrngDescription: replay.PrngDescription(3),
		Config: replay.ConfigKVs(replay.Settings{World: cfg, SnapshotRate: 25})})
	e.RecordJoin(0, true)
	e.RecordPlayerReady(0)
	if err := w.AddPlayer(0, world.PlayerInfo{}); err != nil {
		t.Fatal(err)
	}
	var pos replay.Positions
	for i := range 300 {
		in := world.Input{Direction: int32(i/40%3 - 1), TargetX: 10, TargetY: -5, Jump: int32(i / 25 % 2)}
		v := teehist.Input{in.Direction, in.TargetX, in.TargetY, in.Jump}
		e.RecordInput(0, 1, &v)
		w.SetInput(0, in)
		if i%50 == 49 {
			if tamperCkpt && i == 149 {
				w.SetAuthed(0, true)
			}
			e.RecordCheckpoint(ck.AppendRecorded(nil, w))
			w.SetAuthed(0, false)
		}
		w.Tick()
		e.BeginTick(w.CurrentTick())
		e.BeginPlayers()
		pos.Update(w)
		if x, y, ok := pos.Get(0); ok {
			if tamper && w.CurrentTick() == 200 {
				x++
			}
			e.RecordPlayer(0, x, y)
		} else {
			e.RecordDeadPlayer(0)
		}
		w.DrainEvents(func(world.Event) {})
		if w.CurrentTick()%2 == 0 {
			w.PostSnap()
		}
	}
	e.Finish()
	path := filepath.Join(t.TempDir(), "g.teehistorian")
	if err := os.WriteFile(path, e.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestDumpReference(t *testing.T) {
	code, out, errs := runCmd("dump", "testdata/ddnet_07.teehistorian")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1+392 || !strings.HasPrefix(lines[0], "header {") || !strings.Contains(lines[len(lines)-1], "FINISH") {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	for _, want := range []string{"JOINVER7", "PLAYER_READY", "DROP cid=0", "INPUT_NEW cid=0", "CONSOLE_COMMAND"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in dump", want)
		}
	}
}

func TestJSONReference(t *testing.T) {
	code, out, errs := runCmd("json", "testdata/ddnet_07.teehistorian")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if !s.Finished || s.Messages != 392 || len(s.Joins) != 1 || len(s.Drops) != 1 || s.Counts["PLAYER_DIFF"] != 335 || s.LastTick != 801 {
		t.Fatalf("summary %+v", s)
	}
}

func TestTruncatedFile(t *testing.T) {
	data, _ := os.ReadFile("testdata/ddnet_07.teehistorian")
	path := filepath.Join(t.TempDir(), "cut.teehistorian")
	_ = os.WriteFile(path, data[:3000], 0o644)
	code, _, errs := runCmd("dump", path)
	if code != 1 || !strings.Contains(errs, "offset ") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestReplay(t *testing.T) {
	code, out, errs := runCmd("replay", recording(t, false))
	if code != 0 || !strings.Contains(out, "no divergence") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	code, out, errs = runCmd("replay", recordingCkpt(t, false, false))
	if code != 0 || !strings.Contains(out, "6 checkpoints checked") || !strings.Contains(out, "no divergence") {
		t.Fatalf("with checkpoints: exit %d: %s %s", code, out, errs)
	}
	code, out, _ = runCmd("replay", recordingCkpt(t, false, true))
	if code != 1 || !strings.Contains(out, "DIVERGENCE at tick 149: the checkpoint differs from the simulated world") {
		t.Fatalf("a wrong checkpoint: exit %d: %s", code, out)
	}
	code, out, _ = runCmd("replay", recording(t, true))
	if code != 1 || !strings.Contains(out, "DIVERGENCE at tick 200 cid 0") {
		t.Fatalf("tampered: exit %d: %s", code, out)
	}
	code, _, errs = runCmd("replay", "testdata/ddnet_07.teehistorian")
	if code != 2 {
		t.Fatalf("foreign file: exit %d %s", code, errs)
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		inStderr string // expected in stderr; the usage text goes to stdout for help, stderr otherwise
	}{
		{nil, 2, ""},
		{[]string{"-h"}, 0, ""},
		{[]string{"help"}, 0, ""},
		{[]string{"replay", "-h"}, 0, ""},
		{[]string{"x"}, 2, `unknown command "x"`},
		{[]string{"dump"}, 2, "dump takes one FILE"},
		{[]string{"json", "a", "b"}, 2, "json takes one FILE"},
		{[]string{"replay"}, 2, "replay takes one FILE"},
		{[]string{"replay", "f", "-map", "m"}, 2, "replay takes one FILE after its flags"},
		{[]string{"replay", "-x", "f"}, 2, "-x"},
		{[]string{"dump", t.TempDir()}, 2, "is a directory"},
		{[]string{"dump", "-h"}, 0, ""},
		{[]string{"json", "--help"}, 0, ""},
		{[]string{"find", "-dir", t.TempDir()}, 2, "has no index yet: run twhist index"},
		{[]string{"find", "-dir", filepath.Join(t.TempDir(), "none")}, 2, "has no index yet"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCmd(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.inStderr) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", code, tc.code, errs, tc.inStderr)
			}
			help := errs
			if code == 0 {
				help = out
			}
			if !strings.Contains(help, "usage: twhist") && !strings.Contains(errs, "directory") && !strings.Contains(errs, "no index") {
				t.Fatalf("no usage text: stdout %q stderr %q", out, errs)
			}
		})
	}
}

// TestDumpServerMessage: dump names the message a SERVER_MESSAGE holds.
func TestDumpServerMessage(t *testing.T) {
	e := teehist.NewEncoder()
	e.WriteHeader(&teehist.Header{GameUUID: teehist.NameUUID("dump"), MapName: "m", UUIDs: teehist.DefaultUUIDs()})
	var pk netproto.Packer
	if err := gamemsg.Encode(&pk, &gamemsg.SvChat{Mode: 1, ClientID: 2, TargetID: -1, Message: "gg"}); err != nil {
		t.Fatal(err)
	}
	e.RecordServerMsg(pk.Bytes())
	e.Finish()
	path := filepath.Join(t.TempDir(), "msg.teehistorian")
	if err := os.WriteFile(path, e.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd("dump", path)
	if code != 0 || !strings.Contains(out, "SERVER_MESSAGE uuid=") || !strings.Contains(out, "msg=Sv_Chat") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
}

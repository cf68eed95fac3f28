package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"twserver/demo"
	"twserver/internal/testenv"
	"twserver/snap"
	"twserver/teehist"
	"twserver/teehist/index"
	"twserver/world"
)

const lmsFile = "testdata/twserver_lms.teehistorian"

// botsFile is a recording with bots (teehist/testdata/README.md): Pebble is client 3.
const botsFile = "../../teehist/testdata/twserver_bots.teehistorian"

// foreign returns the recording data with the random generator of another
// server in its header (what a DDNet recording on the same map looks like).
func foreign(t *testing.T, data []byte) string {
	t.Helper()
	r := teehist.NewReader(bytes.NewReader(data))
	h, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	h.PrngDescription = "ddnet-random"
	e := teehist.NewEncoder()
	e.WriteHeader(h)
	p := filepath.Join(t.TempDir(), "foreign.teehistorian")
	if err := os.WriteFile(p, append(e.Bytes(), data[r.Offset():]...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readDemo reads a demo file whole; it fails the test on any error.
func readDemo(t *testing.T, path string) (*demo.Reader, []demo.Tick) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sizes := snap.Sizes7
	if r, err := demo.NewReader(data); err == nil && r.Header.NetVersion == demo.NetVersion06 {
		sizes = snap.Sizes6
	}
	r, ticks, err := demo.ReadAll(data, sizes)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(ticks) == 0 || !ticks[0].Keyframe {
		t.Fatalf("%s: %d ticks, the first not a keyframe", path, len(ticks))
	}
	return r, ticks
}

// TestDemoCommand: whole games, clips and player views of a twserver
// recording give demos that read back with the right ticks, length and
// view; files cut short give a demo up to their last whole tick with a
// warning; foreign and divergent files fail and leave no demo behind.
func TestDemoCommand(t *testing.T) {
	full, err := os.ReadFile(lmsFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := func(n int) string {
		p := filepath.Join(dir, "cut"+strings.Repeat("x", n%7)+".teehistorian")
		if err := os.WriteFile(p, full[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name        string
		args        []string
		file        string
		code        int
		inStderr    string
		first, last int32 // snapshot ticks of the demo (code 0)
		local       int   // client id marked local in De_ClientInfo, -1 none
	}{
		{"whole", nil, lmsFile, 0, "", 2, 2152, -1},
		{"clip seconds", []string{"-from", "10", "-to", "0:20"}, lmsFile, 0, "", 500, 1000, -1},
		{"clip ticks", []string{"-from", "@501", "-to", "@777"}, lmsFile, 0, "", 502, 776, -1},
		{"pov id", []string{"-pov", "2"}, lmsFile, 0, "", -1, -1, 2},
		{"pov name", []string{"-pov", "twload3", "-to", "30"}, lmsFile, 0, "", -1, 1500, 3},
		{"pov bot", []string{"-pov", "Pebble"}, botsFile, 0, "", -1, -1, 3},
		// Quartz (a bot) left client 1 at tick 424 for bob: Quartz's view ends there
		{"pov name, slot reused", []string{"-pov", "Quartz"}, botsFile, 0, "", 28, 424, 1},
		{"pov name, range narrowed", []string{"-pov", "Quartz", "-from", "5"}, botsFile, 0, "Quartz held client 1, ticks 27 to 424: the demo", 250, 424, 1},
		{"pov name, not in the range", []string{"-pov", "Quartz", "-from", "@500"}, botsFile, 2, "was not in the game in the range (client 1, ticks 27 to 424)", 0, 0, -1},
		{"ddnet", []string{"-format", "06"}, lmsFile, 0, "", 2, 2152, -1},
		{"ddnet pov", []string{"-format", "06", "-pov", "1", "-from", "2"}, lmsFile, 0, "", 100, 2152, 1},
		{"bad format", []string{"-format", "05"}, lmsFile, 2, "want 07 or 06", 0, 0, -1},
		{"cut between messages", nil, "", 0, "ends without FINISH", 2, -1, -1},
		{"cut inside a message", nil, "", 0, "ends without FINISH", 2, -1, -1},
		{"cut in the header", nil, "", 1, "offset", 0, 0, -1},
		{"divergent", nil, "tampered", 1, "diverges from the simulation at tick 200 cid 0", 0, 0, -1},
		{"foreign", nil, "", 2, "not a twserver seed", 0, 0, -1},
		{"unknown player", []string{"-pov", "nobody"}, lmsFile, 2, `no player named "nobody"`, 0, 0, -1},
		{"bad time", []string{"-from", "1:x"}, lmsFile, 2, "-from", 0, 0, -1},
		{"empty clip", []string{"-from", "@5000", "-to", "@6000"}, lmsFile, 2, "no snapshot", 0, 0, -1},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			switch tc.name {
			case "cut between messages":
				file = cut(20000) // found below: a message boundary is not needed, the reader says which
			case "cut inside a message":
				file = cut(12345)
			case "cut in the header":
				file = cut(100)
			case "divergent":
				file = recording(t, true)
			case "foreign":
				file = foreign(t, full)
			}
			out := filepath.Join(dir, "out"+string(rune('a'+i))+".demo")
			args := append(append([]string{"demo"}, tc.args...), "-o", out, file)
			code, stdout, errs := runCmd(args...)
			if code != tc.code || !strings.Contains(errs, tc.inStderr) {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, tc.code, stdout, errs, tc.inStderr)
			}
			if code != 0 {
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Fatalf("a failed demo left %s", out)
				}
				left, _ := filepath.Glob(filepath.Join(dir, ".out*"))
				if len(left) > 0 {
					t.Fatalf("temporary files left: %v", left)
				}
				return
			}
			r, ticks := readDemo(t, out)
			first, last := ticks[0].Tick, ticks[len(ticks)-1].Tick
			if tc.first >= 0 && first != tc.first || tc.last >= 0 && last != tc.last {
				t.Errorf("ticks %d..%d, want %d..%d", first, last, tc.first, tc.last)
			}
			if want := (last - first) / 50; r.Header.Length != want {
				t.Errorf("header length %d s, want %d", r.Header.Length, want)
			}
			wantType := "server"
			if tc.local >= 0 {
				wantType = "client"
			}
			if r.Header.Type != wantType {
				t.Errorf("demo type %q, want %q", r.Header.Type, wantType)
			}
			ddnet := strings.Contains(strings.Join(tc.args, " "), "-format 06")
			if want := map[bool]string{false: demo.NetVersion07, true: demo.NetVersion06}[ddnet]; r.Header.NetVersion != want {
				t.Errorf("net version %q, want %q", r.Header.NetVersion, want)
			}
			if ddnet {
				if n := ticks[len(ticks)/2].Snap.CountType(11); n == 0 { // 0.6 ClientInfo
					t.Errorf("no 0.6 ClientInfo in the DDNet demo")
				}
				return
			}
			if got := localID(ticks[len(ticks)/2].Snap); got != tc.local {
				t.Errorf("local De_ClientInfo %d, want %d", got, tc.local)
			}
		})
	}
}

// localID returns the client id of the De_ClientInfo marked local (-1: none).
func localID(s *snap.Snapshot) int {
	for i := range s.NumItems() {
		if s.Key(i)>>16 == world.ObjDeClientInfo && s.ItemData(i)[0] == 1 {
			return int(s.Key(i) & 0xffff)
		}
	}
	return -1
}

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int32
		ok   bool
	}{
		{"75", 3750, true}, {"1:15", 3750, true}, {"@3750", 3750, true}, {"0", 0, true}, {"1:00:00", 180000, true},
		{"0.5", 25, true}, {"", 0, false}, {"-1", 0, false}, {"@-1", 0, false}, {"1:", 0, false}, {"x", 0, false},
		{"@99999999999", 0, false}, {"9999999:00", 0, false},
	} {
		got, err := parseTime(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseTime(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzParseTime: any text either fails or gives a tick in 0..MaxTicks
// that a second parse of its @TICK form returns unchanged.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"75", "1:15", "@3750", "0.02", "1:2:3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tick, err := parseTime(s)
		if err != nil {
			return
		}
		if tick < 0 {
			t.Fatalf("%q: tick %d", s, tick)
		}
		again, err := parseTime("@" + strconv.Itoa(int(tick)))
		if err != nil || again != tick {
			t.Fatalf("%q: tick %d, @ form gives %d, %v", s, tick, again, err)
		}
	})
}

// indexedDir is a directory holding a copy of file src as name, indexed
// with twhist index.
func indexedDir(t *testing.T, src, name string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCmd("index", dir); code != 0 || !strings.Contains(out, "indexed 1") {
		t.Fatalf("index: exit %d %q %q", code, out, errs)
	}
	return dir
}

// TestIndexFind: twhist index and find on a directory with the LMS game;
// the found kill's command, run as it is printed, makes the demo of that
// moment from the killer's view.
func TestIndexFind(t *testing.T) {
	dir := indexedDir(t, lmsFile, "lms.teehistorian")
	code, out, errs := runCmd("find", "-dir", dir, "-event", "kill", "-json")
	if code != 0 {
		t.Fatalf("find: exit %d %q", code, errs)
	}
	var f found
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &f); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if f.File != "lms.teehistorian" || f.Map != "twsrv_arena" || f.Tick != 344 || f.Player != "twload0" || f.GameUUID == "" {
		t.Fatalf("found %+v", f)
	}
	args := strings.Fields(f.Command)
	if args[0] != "twhist" {
		t.Fatalf("command %q", f.Command)
	}
	for i, a := range args {
		if a == "-o" {
			args[i+1] = filepath.Join(dir, args[i+1])
		}
	}
	if code, out, errs := runCmd(args[1:]...); code != 0 || !strings.Contains(out, "ticks 94..594") {
		t.Fatalf("%s: exit %d %q %q", f.Command, code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"find", "-dir", dir, "-player", "twload3"}, 0, "players [\"twload0\""},
		{[]string{"find", "-dir", dir, "-text", "gg"}, 0, ""},
		{[]string{"find", "-dir", dir, "-text", "gg", "-event", "kill"}, 2, "a text selects chat lines"},
		{[]string{"find", "-dir", dir, "-event", "dance"}, 2, "unknown event kind"},
		{[]string{"find", "-dir", dir, "-since", "yesterday"}, 2, "-since"},
		{[]string{"find"}, 2, "-dir DIR"},
	} {
		code, out, errs := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%v: exit %d, %q %q; want %d and %q", tc.args, code, out, errs, tc.code, tc.want)
		}
	}
}

// TestFindChat: twhist find -text on a recorded game with chat (record's
// TestChatGame) prints the line as a demo command of the speaker's view
// around the line, with the raw line in -json; the command makes the demo.
func TestFindChat(t *testing.T) {
	dir := indexedDir(t, "../../teehist/testdata/twserver_chat.teehistorian", "chat.teehistorian")
	for _, tc := range []struct {
		text string
		want []string // the lines found, in order
	}{
		{"100%", []string{"it's 100% fair"}},
		{"gg", []string{"gg all", "snake_case GG"}},
		{"_", []string{"snake_case GG"}},
		{"' OR 1=1 --", []string{"' OR 1=1 --"}},
		{"team only", nil},
	} {
		code, out, errs := runCmd("find", "-dir", dir, "-text", tc.text, "-json")
		if code != 0 {
			t.Fatalf("find -text %q: exit %d %q", tc.text, code, errs)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line == "" {
				continue
			}
			var f found
			if err := json.Unmarshal([]byte(line), &f); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if f.File != "chat.teehistorian" || f.Map != "twsrv_arena" || f.GameUUID == "" || f.Player == "" || f.Tick < 20 ||
				f.Event != "chat" || !strings.Contains(f.Command, fmt.Sprintf("-pov %s -from @0 -to @%d ", f.Player, f.Tick+ClipMargin)) {
				t.Errorf("-text %q: found %+v", tc.text, f)
			}
			got = append(got, f.Text)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("-text %q: %q, want %q", tc.text, got, tc.want)
		}
	}
	code, out, errs := runCmd("find", "-dir", dir, "-text", "FAIR")
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("find: exit %d %q %q", code, out, errs)
	}
	cmd, comment, _ := strings.Cut(out, "  # ")
	if !strings.Contains(comment, `chat "playerb" tick 61 (0:01): "it's 100% fair"`) {
		t.Errorf("comment %q", comment)
	}
	args := strings.Fields(cmd)
	for i, a := range args {
		if a == "-o" {
			args[i+1] = filepath.Join(dir, args[i+1])
		}
	}
	if code, out, errs := runCmd(args[1:]...); code != 0 || !strings.Contains(out, "ticks 2..310") {
		t.Fatalf("%s: exit %d %q %q", cmd, code, out, errs)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"p0": "p0", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$(x)": "'$(x)'",
		"\x1b[2J'\\": `$'\x1b[2J\'\\'`, "a\u009bb\xffé": `$'a\xc2\x9bb\xffé'`} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestDemoCommandOut: the demo file a found line's command writes is named
// after the event, or for a whole game not after the server's own demo of
// it (<game-uuid>.demo, which running the command in the recordings
// directory would overwrite).
func TestDemoCommandOut(t *testing.T) {
	for _, tt := range []struct {
		r    index.Result
		want string
	}{
		{index.Result{File: "g.teehistorian", GameUUID: "0123456789abcdef", Tick: 100, Event: index.EventKill, Player: "p"}, " -o 01234567-kill-100.demo "},
		{index.Result{File: "g.teehistorian", GameUUID: "0123456789abcdef", Tick: -1, Player: "p"}, " -o 0123456789abcdef-replay.demo "},
	} {
		if cmd := demoCommand(&tt.r, "rec", ""); !strings.Contains(cmd, tt.want) {
			t.Errorf("%q does not contain %q", cmd, tt.want)
		}
	}
}

// TestFindControlChars: the command and comment twhist find prints for a
// name, map and file holding terminal escapes carry no control byte, and
// the shell reads the exact name back from the command.
func TestFindControlChars(t *testing.T) {
	bash := testenv.LookPath(t, "bash", "bash")
	name := "a\x1b]0;x\x07\x1b[31mb\u009b1m\xff'\\$(id)"
	r := index.Result{File: "f\x1b[2J.teehistorian", GameUUID: "0123456789abcdef", Map: "m\x1b[H", Type: "dm", Tick: 100,
		Event: index.EventKill, Player: name, Other: "v\x1b"}
	cmd := demoCommand(&r, "/rec\x1b", "")
	var out bytes.Buffer
	err := findLine(&out, &r, cmd)
	for i, c := range out.Bytes() {
		if c < 0x20 && c != '\n' || c == 0x7f {
			t.Fatalf("byte %#x at %d of %q", c, i, out.String())
		}
	}
	if err != nil || strings.ContainsRune(out.String(), 0x9b) || !utf8.ValidString(out.String()) {
		t.Fatalf("printed %q", out.String())
	}
	// the shell gets the name back byte for byte from -pov
	_, after, _ := strings.Cut(cmd, " -pov ")
	arg, _, _ := strings.Cut(after, " -from ")
	got, err := exec.Command(bash, "-c", "printf %s "+arg).Output()
	if err != nil || string(got) != name {
		t.Fatalf("bash read %q from %s: %v", got, arg, err)
	}
	// positive control: the raw name does carry the bytes checked above
	if !strings.ContainsRune(name, 0x1b) || !strings.ContainsRune(name, 0x9b) {
		t.Fatal("the name holds no escape")
	}
}

// TestDemoBotSkins: the demo made from a recording with bots shows each bot
// with the skin it had in the game (its De_ClientInfo carries the bot's
// skin parts, recorded as its start info), not the default look.
func TestDemoBotSkins(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bots.demo")
	if code, stdout, errs := runCmd("demo", "-o", out, botsFile); code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	_, ticks := readDemo(t, out)
	// the humans of the recording are alice and bob; the bots' looks are
	// botslots' by client id (cid%4: standard, kitty, bear, koala)
	want := [4]string{"standard", "kitty", "bear", "koala"}
	seen := map[string]string{} // bot name: body part name
	for _, tk := range ticks {
		s := tk.Snap
		for i := range s.NumItems() {
			if s.Key(i)>>16 != world.ObjDeClientInfo {
				continue
			}
			d := s.ItemData(i)
			name, body := snap.IntsToStr(d[2:6]), snap.IntsToStr(d[10:16])
			if name == "alice" || name == "bob" {
				continue
			}
			if cid := int(s.Key(i) & 0xffff); body != want[cid%4] {
				t.Fatalf("tick %d: bot %q (client %d) has body %q in the demo, want %q", tk.Tick, name, cid, body, want[cid%4])
			}
			seen[name] = body
		}
	}
	if len(seen) < 3 {
		t.Errorf("bots in the demo: %v, want at least 3", seen)
	}
}

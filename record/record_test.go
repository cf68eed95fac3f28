package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/demo"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
	"twserver/world/twmap"
)

// logLines keeps the messages logged by the loop and the writer goroutines.
type logLines struct {
	mu   sync.Mutex
	msgs []string
}

// Run is the zerolog hook that keeps each message.
func (l *logLines) Run(_ *zerolog.Event, _ zerolog.Level, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, msg)
}

// count returns how many messages contain sub.
func (l *logLines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if strings.Contains(m, sub) {
			n++
		}
	}
	return n
}

// game drives a recorder the way the loop does: a world with players
// joined and ready, inputs recorded before each tick, AfterTick after it.
type game struct {
	cfg    config.Config
	w      *world.World
	r      *Recorder
	logs   logLines
	names  [world.MaxClients]string
	inGame [world.MaxClients]bool
	fire   bool // players fire (kills make messages; the alloc test leaves them out)
	// catchUp, when set, says which snapshot ticks a catching-up loop
	// skips (no snapshots, no PostSnap); latency sets changing latencies.
	catchUp func(tick int32) bool
	latency bool
}

// newGame starts a recorded game on the default map with players in it;
// adjust (if not nil) changes the configuration first.
func newGame(tb testing.TB, players int, create CreateFunc, adjust func(*config.Config)) *game {
	tb.Helper()
	g := &game{cfg: config.Default()}
	g.cfg.Record.Teehistorian = true
	g.cfg.Record.Demo = true
	g.cfg.Record.Dir = tb.TempDir()
	if adjust != nil {
		adjust(&g.cfg)
	}
	if create == nil {
		create = unpacedCreate
	}
	g.r = New(Options{Config: &g.cfg, Log: zerolog.New(io.Discard).Hook(&g.logs), Create: create, ServerVersion: "0.7.5, twserver"})
	g.newMap(tb)
	for cid := range players {
		g.join(tb, cid)
	}
	return g
}

// unpacedCreate is teehist.CreateFile with a writer queue deep enough for
// a whole test game: the tests step the world as fast as the CPU allows, not
// every 20 ms, so on a busy machine the default queue (sized for real time)
// could fill and stop the recording, which is what the backlog tests check
// on purpose and the others must not run into.
func unpacedCreate(path string, o teehist.FileOptions) (*teehist.FileWriter, error) {
	o.QueueLen = 1 << 14
	return teehist.CreateFile(path, o)
}

// newMap starts a new game (a map load); connected players join it.
func (g *game) newMap(tb testing.TB) {
	w, err := world.New(twmap.Default(), world.DefaultConfig(), 42)
	if err != nil {
		tb.Fatal(err)
	}
	g.w = w
	g.r.GameStart(Game{World: w, Map: twmap.Default(), Seed: 42})
	for cid, in := range g.inGame {
		if in {
			g.r.Join(cid, cid%2 == 0)
			g.r.Ready(cid, g.names[cid])
			if err := w.AddPlayer(cid, world.PlayerInfo{Name: g.names[cid]}); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// join connects client cid (odd ones as 0.6 clients) and puts it in the game.
func (g *game) join(tb testing.TB, cid int) {
	g.names[cid] = "player" + string(rune('a'+cid))
	g.r.Join(cid, cid%2 == 0)
	g.r.Ready(cid, g.names[cid])
	if err := g.w.AddPlayer(cid, world.PlayerInfo{Name: g.names[cid]}); err != nil {
		tb.Fatal(err)
	}
	g.inGame[cid] = true
}

// drop removes client cid as the loop does.
func (g *game) drop(cid int, reason string) {
	g.r.Drop(cid, g.names[cid], g.inGame[cid], reason)
	g.w.RemovePlayer(cid)
	g.inGame[cid] = false
}

// step runs one tick with moving, jumping and aiming inputs through the
// recording hooks (predicted inputs, and direct inputs every 5th tick).
func (g *game) step() {
	next := g.w.CurrentTick() + 1
	for cid, in := range g.inGame {
		if !in {
			continue
		}
		if next%11 == int32(cid) {
			g.r.NoInput(cid)
			continue
		}
		in := world.Input{Direction: next/40%3 - 1, TargetX: 100 + next%7, TargetY: int32(cid*10 - 40),
			Jump: next / 20 % 2, WantedWeapon: 1}
		if g.fire {
			in.Fire = next / 3
		}
		if next%5 == 0 {
			g.r.DirectInput(cid, &in)
			g.w.DirectInput(cid, in)
		}
		g.w.SetInput(cid, in)
		g.r.Input(cid, &in)
		if g.latency {
			g.w.SetLatency(cid, int(5+next/50*3+int32(cid)+next%3)) // changes within and between seconds
		}
	}
	snapTick := g.cfg.Server.SnapshotRate == 50 || next%2 == 0
	skipped := snapTick && g.catchUp != nil && g.catchUp(next)
	g.r.BeforeTick(skipped)
	g.w.Tick()
	g.r.AfterTick()
	g.w.DrainEvents(g.onEvent)
	if snapTick && !skipped {
		g.w.PostSnap()
	}
}

// onEvent hands the kill messages to everybody to the demo, as the loop does.
func (g *game) onEvent(e world.Event) {
	if e.Kind == world.EvKillMsg && e.To < 0 {
		g.r.GameMessage(&gamemsg.SvKillMsg{Killer: e.Args[0], Victim: e.Args[1], Weapon: e.Args[2], ModeSpecial: e.Args[3]})
	}
}

// files returns the recordings of the game's directory with suffix.
func (g *game) files(t *testing.T, suffix string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(g.cfg.Record.Dir, "*"+suffix))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// readTeehist replays the teehistorian file at path in a fresh world and
// counts its messages by kind.
func readTeehist(t *testing.T, path string) (*teehist.Header, *replay.Result, map[string]int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	open := func() (*teehist.Reader, *teehist.Header) { return readerOf(t, path, data) }
	r, h := open()
	res, err := replay.Run(r, h, twmap.Default())
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	counts := map[string]int{}
	var m teehist.Message
	for r, _ = open(); r.Next(&m) == nil; {
		if m.Kind == teehist.KindEx {
			counts[m.Ex.String()]++
		} else {
			counts[m.Kind.String()]++
		}
	}
	return h, res, counts
}

// TestRecordReplay records 4 players (two joined as 0.6 clients) moving,
// jumping, firing, one leaving and a second game after a map load: both
// teehistorian files replay without divergence, the second names the
// first, and the demos carry snapshots and messages.
func TestRecordReplay(t *testing.T) {
	g := newGame(t, 4, nil, nil)
	g.fire = true
	g.r.Auth(1, true)
	g.w.SetAuthed(1, true) // as the loop does (the checkpoints check the world has it)
	for i := range 600 {
		if i == 400 {
			g.drop(3, "left")
		}
		g.step()
	}
	first := g.r.Status()
	if !first.TeehistActive || !first.DemoActive || first.TeehistBytes == 0 || first.DemoBytes == 0 {
		t.Fatalf("not recording: %+v; logs %q", first, g.logs.msgs)
	}
	g.newMap(t)
	for range 200 {
		g.step()
	}
	g.r.Stop()
	if st := g.r.Status(); st.TeehistPath != "" || st.DemoPath != "" {
		t.Fatalf("files still open after Stop: %+v", st)
	}

	h1, res1, counts := readTeehist(t, first.TeehistPath)
	t.Logf("first game: %d ticks, %d positions, messages %v", res1.Ticks, res1.Compared, counts)
	if res1.Divergence != nil || !res1.Finished || res1.Ticks < 590 || res1.Compared < 4*300 {
		t.Fatalf("first game: divergence %v, finished %v, %d ticks, %d compared", res1.Divergence, res1.Finished, res1.Ticks, res1.Compared)
	}
	for k, want := range map[string]int{"JOINVER7": 2, "JOINVER6": 2, "PLAYER_READY": 4, "PLAYER_NAME": 4, "DROP": 1, "AUTH_LOGIN": 1, "FINISH": 1} {
		if counts[k] != want {
			t.Errorf("%d %s, want %d", counts[k], k, want)
		}
	}
	for _, k := range []string{"INPUT_NEW", "INPUT_DIFF", "DIRECT_INPUT", "INPUT_MISSING", "PLAYER_NEW", "PLAYER_DIFF"} {
		if counts[k] == 0 {
			t.Errorf("no %s recorded", k)
		}
	}
	files := g.files(t, ".teehistorian")
	if len(files) != 2 {
		t.Fatalf("%d teehistorian files", len(files))
	}
	second := files[0]
	if second == first.TeehistPath {
		second = files[1]
	}
	h2, res2, _ := readTeehist(t, second)
	if h2.PrevGameUUID != h1.GameUUID || res2.Divergence != nil || !res2.Finished || res2.Compared < 3*100 {
		t.Fatalf("second game: prev %v (first %v), divergence %v, finished %v, %d compared",
			h2.PrevGameUUID, h1.GameUUID, res2.Divergence, res2.Finished, res2.Compared)
	}
	if h1.ServerVersion != "0.7.5, twserver" || h1.MapName != twmap.Default().Name || h1.PrngDescription != replay.PrngDescription(42) {
		t.Errorf("header %+v", h1)
	}

	data, err := os.ReadFile(strings.TrimSuffix(first.TeehistPath, ".teehistorian") + ".demo")
	if err != nil {
		t.Fatal(err)
	}
	dr, ticks, err := demo.ReadAll(data, snap.Sizes7)
	if err != nil {
		t.Fatal(err)
	}
	if hd := dr.Header; hd.Type != "server" || hd.MapName != twmap.Default().Name || hd.Length < 10 || len(ticks) < 290 || !ticks[0].Keyframe {
		t.Fatalf("demo header %+v, %d ticks", hd, len(ticks))
	}
	kinds := map[int32]int{}
	maxInfo := 0
	for _, tk := range ticks {
		info := 0
		for i := 0; i < tk.Snap.NumItems(); i++ {
			if tk.Snap.Key(i)>>16 == world.ObjDeClientInfo {
				info++
			}
		}
		maxInfo = max(maxInfo, info)
		for _, m := range tk.Messages {
			var u netproto.Unpacker
			u.Reset(m)
			kinds[u.GetInt()>>1]++ // the message id (id<<1 | system)
		}
	}
	if maxInfo != 4 || kinds[gamemsg.MsgDeClientEnter] != 4 || kinds[gamemsg.MsgDeClientLeave] != 1 || kinds[gamemsg.MsgSvKillMsg] == 0 {
		t.Errorf("demo: at most %d De_ClientInfo; messages by id %v", maxInfo, kinds)
	}
}

// TestStartDemo: the console's record and stoprecord, with the names they refuse.
func TestStartDemo(t *testing.T) {
	g := newGame(t, 1, nil, func(c *config.Config) { c.Record.Demo, c.Record.Teehistorian = false, false })
	for _, name := range []string{"", ".", "..", "a/b", `a\b`} {
		if _, err := g.r.StartDemo(name); !errors.Is(err, ErrDemoName) {
			t.Errorf("StartDemo(%q) = %v", name, err)
		}
	}
	if g.r.DemoRecording() || g.r.StopDemo() {
		t.Fatal("recording before a start")
	}
	name := DemoName("", time.Date(2026, 11, 27, 18, 5, 9, 0, time.UTC))
	if name != "demo_2026-11-27_18-05-09" || DemoName("mine", time.Now()) != "mine" {
		t.Fatalf("DemoName: %q", name)
	}
	g.cfg.Record.Dir = filepath.Join(g.cfg.Record.Dir, "sub")
	path, err := g.r.StartDemo(name)
	if err != nil || path != filepath.Join(g.cfg.Record.Dir, name+".demo") || !g.r.DemoRecording() {
		t.Fatalf("StartDemo = %q, %v", path, err)
	}
	if _, err := g.r.StartDemo("other"); !errors.Is(err, ErrDemoRecording) {
		t.Errorf("second StartDemo: %v", err)
	}
	for range 100 {
		g.step()
	}
	if !g.r.StopDemo() || g.r.DemoRecording() {
		t.Fatal("StopDemo")
	}
	if _, err := g.r.StartDemo(name); err == nil {
		t.Error("StartDemo over an existing file")
	}
	g.r.Stop()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ticks, err := demo.ReadAll(data, snap.Sizes7); err != nil || len(ticks) < 45 {
		t.Fatalf("demo: %d ticks, %v", len(ticks), err)
	}
	g.cfg.Record.Dir = ""
	if _, err := g.r.StartDemo("x"); !errors.Is(err, ErrNoDir) {
		t.Errorf("without record.dir: %v", err)
	}
	if n := g.r.Counters()["record_files"]; n != 1 {
		t.Errorf("record_files = %d", n)
	}
}

// TestRecordPrune: a game start deletes the oldest recordings beyond
// record.max_dir_mb and nothing else.
func TestRecordPrune(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i, name := range []string{"a.teehistorian", "b.demo", "c.demo", "notes.txt"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, 600<<10), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	g := newGame(t, 0, nil, func(c *config.Config) { c.Record.Dir, c.Record.MaxDirMB = dir, 1 })
	g.r.Stop()
	for name, want := range map[string]bool{"a.teehistorian": false, "b.demo": false, "c.demo": true, "notes.txt": true} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s kept %v, want %v", name, err == nil, want)
		}
	}
	if n := g.r.Counters()["record_pruned"]; n != 2 {
		t.Errorf("record_pruned = %d, want 2", n)
	}
	if n := len(g.files(t, ".teehistorian")) + len(g.files(t, ".demo")); n != 3 {
		t.Errorf("%d recordings after the game, want 3 (c.demo and the game's two)", n)
	}
}

// TestRecordMaxFile: a game's recordings stop at record.max_file_mb with
// one log line each; the teehistorian still ends with FINISH.
func TestRecordMaxFile(t *testing.T) {
	if testing.Short() {
		t.Skip("about 20000 ticks")
	}
	g := newGame(t, 8, nil, func(c *config.Config) { c.Record.MaxFileMB = 1 })
	for g.r.Status().TeehistActive || g.r.Status().DemoActive {
		if g.w.CurrentTick() > 500000 {
			t.Fatal("no stop in 10000 s of ticks")
		}
		g.step()
	}
	path := g.r.Status().TeehistPath
	g.r.Stop()
	if n := g.r.Counters()["record_stopped"]; n != 2 {
		t.Errorf("record_stopped = %d", n)
	}
	if n := g.logs.count("stopped; the game goes on"); n != 2 {
		t.Errorf("%d stop lines, want 2: %q", n, g.logs.msgs)
	}
	_, res, _ := readTeehist(t, path)
	if res.Divergence != nil || !res.Finished {
		t.Errorf("divergence %v, finished %v", res.Divergence, res.Finished)
	}
}

// TestDemoFromTeehistorian: the demo the replay makes of the recorder's
// teehistorian has the recorder's own demo snapshots tick for tick, with
// latencies that change every tick (LATENCY) and a loop catching up that
// skips every fifth snapshot tick (SNAP_SKIPPED: the tick's events stay
// for the next snapshot).
func TestDemoFromTeehistorian(t *testing.T) {
	g := newGame(t, 4, nil, nil)
	g.fire, g.latency = true, true
	g.catchUp = func(tick int32) bool { return tick%10 == 4 }
	for i := range 500 {
		g.step()
		if i%10 == 0 {
			time.Sleep(time.Millisecond) // a real loop's pace lets the writers keep up (their queues are bounded)
		}
		if i%100 == 50 { // messages the loop sends to everybody between ticks
			g.r.GameMessage(&gamemsg.SvChat{Mode: 1, ClientID: 1, TargetID: -1, Message: fmt.Sprint("line ", i)})
			g.r.GameMessage(&gamemsg.SvVoteSet{ClientID: 2, Type: 1, Timeout: 25, Description: "restart", Reason: "why"})
			// an accepted skin change, as the loop makes it (the file's; no demo message)
			info, _ := g.w.Info(3)
			info.SkinPartNames[0] = fmt.Sprint("skin", i)
			info.SkinPartColors[1] = int32(i)
			g.w.SetPlayerInfo(3, info)
			g.r.GameMessage(&gamemsg.SvSkinChange{ClientID: 3, Skin: gamemsg.Skin{PartNames: info.SkinPartNames,
				UseCustomColors: info.UseCustomColors, PartColors: info.SkinPartColors}})
		}
	}
	st := g.r.Status()
	g.r.Stop()
	_, _, counts := readTeehist(t, st.TeehistPath)
	// SERVER_MESSAGE: the chat lines, votes and skin changes; the kill
	// messages (the world's) are not recorded
	if counts["LATENCY"] < 4*8 || counts["SNAP_SKIPPED"] != 50 || counts["SERVER_MESSAGE"] != 15 {
		t.Fatalf("messages %v", counts)
	}
	server, err := os.ReadFile(st.DemoPath)
	if err != nil {
		t.Fatal(err)
	}
	r, h := openTeehist(t, st.TeehistPath)
	var made bytes.Buffer
	if _, err := replay.WriteDemo(&made, r, h, twmap.Default(), replay.DemoOptions{View: replay.FreeView}); err != nil {
		t.Fatal(err)
	}
	_, want, err := demo.ReadAll(server, snap.Sizes7)
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := demo.ReadAll(made.Bytes(), snap.Sizes7)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) < 240 {
		t.Fatalf("%d snapshot ticks, the recorder's demo %d", len(got), len(want))
	}
	events, latencies, msgs := 0, 0, 0
	for i := range want {
		w, g := want[i], got[i]
		if w.Tick != g.Tick || !snapEqual(w.Snap, g.Snap) || !slices.EqualFunc(w.Messages, g.Messages, bytes.Equal) {
			t.Fatalf("tick %d (%d) differs from the recorder's demo", g.Tick, w.Tick)
		}
		msgs += len(w.Messages)
		for j := range w.Snap.NumItems() {
			switch k := w.Snap.Key(j) >> 16; {
			case k >= world.EventCommon:
				events++
			case k == world.ObjPlayerInfo && w.Snap.ItemData(j)[2] > 0:
				latencies++
			}
		}
	}
	if events == 0 || latencies == 0 || msgs < 10 {
		t.Fatalf("%d events, %d non-zero latencies, %d messages in the demo", events, latencies, msgs)
	}
}

// snapEqual reports whether two snapshots hold the same items.
func snapEqual(a, b *snap.Snapshot) bool {
	if a.NumItems() != b.NumItems() {
		return false
	}
	for i := range a.NumItems() {
		j := b.Find(a.Key(i))
		if j < 0 || !slices.Equal(a.ItemData(i), b.ItemData(j)) {
			return false
		}
	}
	return true
}

// openTeehist opens a teehistorian file after its header.
func openTeehist(t *testing.T, path string) (*teehist.Reader, *teehist.Header) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return readerOf(t, path, data)
}

// readerOf reads the header of the teehistorian data of file path.
func readerOf(t *testing.T, path string, data []byte) (*teehist.Reader, *teehist.Header) {
	t.Helper()
	r := teehist.NewReader(bytes.NewReader(data))
	h, err := r.ReadHeader()
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return r, h
}

// TestClip: demo_clip's Clip returns at once (the loop's part) and a
// goroutine writes the demo of the last seconds from the teehistorian file
// as written so far, starting with a keyframe at the asked tick, while the
// game goes on; a second clip meanwhile is refused, a bad name too.
func TestClip(t *testing.T) {
	g := newGame(t, 4, nil, nil)
	g.fire = true
	for i := range 400 {
		g.step()
		if i%10 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(1200 * time.Millisecond) // the writer writes at least once a second
	start := time.Now()
	path, err := g.r.Clip(4, "clip")
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.r.Clip(4, "again"); !errors.Is(err, ErrClipBusy) {
		t.Errorf("second clip: %v", err)
	}
	var slowest time.Duration
	for range 50 { // the game goes on while the clip is written
		s := time.Now()
		g.step()
		slowest = max(slowest, time.Since(s))
	}
	<-g.r.clipDone
	t.Logf("Clip took %v on the loop; slowest of 50 ticks meanwhile %v", took, slowest)
	if took > 20*time.Millisecond {
		t.Errorf("Clip took %v on the loop", took)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, ticks, err := demo.ReadAll(data, snap.Sizes7)
	if err != nil || len(ticks) < 50 {
		t.Fatalf("%d ticks, %v", len(ticks), err)
	}
	if first, last := ticks[0].Tick, ticks[len(ticks)-1].Tick; first != 200 || !ticks[0].Keyframe || last > 400 || last < 300 {
		t.Errorf("clip ticks %d..%d (keyframe %v), want 200..at most 400", first, last, ticks[0].Keyframe)
	}
	if _, err := g.r.Clip(4, "../x"); !errors.Is(err, ErrDemoName) {
		t.Errorf("bad name: %v", err)
	}
	g.r.Stop()
}

// chatLines are the chat lines of the game TestChatGame records: quotes,
// SQL wildcards and a line that is SQL, so that a search treats its text
// as data (teehist/index uses the file).
var chatLines = []struct {
	mode, cid int32
	text      string
}{
	{gamemsg.ChatAll, 0, "gg all"},
	{gamemsg.ChatAll, 1, "it's 100% fair"},
	{gamemsg.ChatAll, 2, "snake_case GG"},
	{gamemsg.ChatAll, 0, "' OR 1=1 --"},
	{gamemsg.ChatTeam, 1, "gg team only"},
	{gamemsg.ChatAll, -1, "gg from the server"},
	{gamemsg.ChatAll, 2, "100 percent, snakeXcase"},
}

// TestChatGame records a DM game of three players who chat (chatLines,
// one every 40 ticks from tick 20 on) and checks that the file holds
// every line as SERVER_MESSAGE. With TWSERVER_UPDATE_TESTDATA=1 it writes
// the file to teehist/testdata/twserver_chat.teehistorian.
func TestChatGame(t *testing.T) {
	g := newGame(t, 3, nil, nil)
	for i := range 320 {
		g.step()
		if k := (i - 20) / 40; i >= 20 && (i-20)%40 == 0 && k < len(chatLines) {
			l := chatLines[k]
			g.r.GameMessage(&gamemsg.SvChat{Mode: l.mode, ClientID: l.cid, TargetID: -1, Message: l.text})
		}
	}
	st := g.r.Status()
	g.r.Stop()
	_, res, counts := readTeehist(t, st.TeehistPath)
	if counts["SERVER_MESSAGE"] != len(chatLines) || res.Divergence != nil || !res.Finished {
		t.Fatalf("messages %v, divergence %v, finished %v", counts, res.Divergence, res.Finished)
	}
	if os.Getenv("TWSERVER_UPDATE_TESTDATA") == "1" {
		data, err := os.ReadFile(st.TeehistPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../teehist/testdata/twserver_chat.teehistorian", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package watch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"twserver/internal/procfs"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/watch/watchtest"
)

// testHeader names the test game's map.
var testHeader = teehist.Header{MapName: watchtest.MapName}

// TestMain lets the test binary be a build child (Cache.SetChild).
func TestMain(m *testing.M) {
	if IsChild() {
		os.Exit(RunChild())
	}
	os.Exit(m.Run())
}

// childCache is a cache of testdata whose builds run in children of the
// test binary.
func childCache(t *testing.T) *Cache {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	c := NewCache(context.Background(), testSource{"testdata"}, 1)
	c.SetChild(exe)
	return c
}

// TestChildBuild: a build in a child process gives the page exactly what
// the same build in this process gives (every chunk byte for byte, the
// events, names and ticks), and the child ran.
func TestChildBuild(t *testing.T) {
	in := built(t, "testdata", testGame)
	c := childCache(t)
	var pids []int
	c.onChild = func(pid int) { pids = append(pids, pid) }
	r, err := c.Get(testGame)
	if err != nil {
		t.Fatal(err)
	}
	<-r.Done()
	if len(pids) != 1 || pids[0] == os.Getpid() {
		t.Fatalf("build children %v", pids)
	}
	a, b := in.Info(true), r.Info(true)
	if b.Error != "" || b.Chunks == 0 || len(b.Events) == 0 || len(b.Names) == 0 {
		t.Fatalf("the child's build: %+v", b)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the child's info differs:\n in process %+v\n child      %+v", a, b)
	}
	for k := range a.Chunks {
		x, _ := in.Chunk(k)
		y, _ := r.Chunk(k)
		if !bytes.Equal(x, y) {
			t.Fatalf("chunk %d differs (%d and %d bytes)", k, len(x), len(y))
		}
	}
	if !bytes.Equal(in.Layer(), r.Layer()) || len(r.Layer()) == 0 {
		t.Fatal("the map layers differ")
	}
}

// TestChildNice: a build child runs at the priority SetNice gave, the
// one it was started at or, started at nice 0 (from the main thread), the
// one it gives itself (the positive control: without SetNice, at the
// test's), and the test's thread keeps its own.
func TestChildNice(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	for _, tc := range []struct {
		nice int
		self bool // started at nice 0, as from the main thread
	}{{0, false}, {MaxNice, false}, {MaxNice, true}} {
		nice := tc.nice
		c := childCache(t)
		c.SetNice(nice)
		c.childSelfNice = tc.self
		got := -100
		c.onChild = func(pid int) { got = procNice(t, pid) } // its zombie before Wait
		r, err := c.Get(testGame)
		if err != nil {
			t.Fatal(err)
		}
		<-r.Done()
		if in := r.Info(false); in.Error != "" {
			t.Fatal(in.Error)
		}
		if got != nice {
			t.Errorf("SetNice(%d) (lowering itself %v): the build child ran at nice %d", nice, tc.self, got)
		}
	}
	if n := procNice(t, os.Getpid()); n != 0 {
		t.Errorf("the test process is at nice %d after the builds", n)
	}
}

// procNice is the nice of process pid's main thread (/proc/PID/stat).
func procNice(t *testing.T, pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	rest, ok := procfs.AfterComm(b)
	f := strings.Fields(string(rest)) // from field 3 (state) on; nice is field 19
	if !ok || len(f) < 17 {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	n, err := strconv.Atoi(f[16])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestChildFails: a child that cannot start, or a program that is no
// build child, ends the build with ErrChild, not a hang or a crash.
func TestChildFails(t *testing.T) {
	for _, exe := range []string{filepath.Join(t.TempDir(), "none"), "/bin/true"} {
		if exe == "/bin/true" {
			if _, err := os.Stat(exe); err != nil {
				continue
			}
		}
		c := NewCache(context.Background(), testSource{"testdata"}, 1)
		c.SetChild(exe)
		r, err := c.Get(testGame)
		if err != nil {
			t.Fatal(err)
		}
		<-r.Done()
		if in := r.Info(false); in.Error == "" || !strings.Contains(in.Error, ErrChild.Error()) {
			t.Errorf("%s: the build's error %q, want ErrChild", exe, in.Error)
		}
	}
}

// childOutput is what a build child writes for the test game.
func childOutput(t testing.TB) []byte {
	m, err := testSource{}.Map(&testHeader)
	if err != nil {
		t.Fatal(err)
	}
	var in []byte
	in = binary.AppendUvarint(in, uint64(len(m.Name)))
	in = append(in, m.Name...)
	in = binary.AppendUvarint(in, uint64(len(m.Data)))
	in = append(in, m.Data...)
	f, err := os.Open(filepath.Join("testdata", testGame))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runChild(context.Background(), bytes.NewReader(in), f, &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestReadChildBad: an output cut anywhere, or with a record changed,
// ends readChild with an error (the positive control: the whole output
// reads without one).
func TestReadChildBad(t *testing.T) {
	out := childOutput(t)
	rec := newRecording("x.teehistorian", &testHeader)
	if err := readChild(bufio.NewReader(bytes.NewReader(out)), rec); err != nil {
		t.Fatalf("the whole output: %v", err)
	}
	for _, n := range []int{0, 1, len(out) / 3, len(out) - 1} {
		rec := newRecording("x.teehistorian", &testHeader)
		if err := readChild(bufio.NewReader(bytes.NewReader(out[:n])), rec); !errors.Is(err, ErrChild) {
			t.Errorf("cut at %d: %v, want ErrChild", n, err)
		}
	}
	bad := append([]byte{'?', 1, 0}, out...)
	if err := readChild(bufio.NewReader(bytes.NewReader(bad)), newRecording("x.teehistorian", &testHeader)); !errors.Is(err, ErrChild) {
		t.Errorf("an unknown record: %v, want ErrChild", err)
	}
}

// FuzzReadChild: any output of a build child is read into a Recording
// or refused, never a panic (the seed: a real child's output).
func FuzzReadChild(f *testing.F) {
	out := childOutput(f)
	f.Add(out[:min(len(out), 4096)])
	f.Add([]byte{recResult, 0})
	var ck bytes.Buffer // a checkpoint record
	p := &pipeSink{w: bufio.NewWriter(&ck)}
	p.addCheckpoint(ckptRef{at: teehist.Point{Offset: 1234, Tick: 500, LastCID: 3}, tick: 500, settings: replay.DefaultSettings()})
	p.result(nil)
	_ = p.w.Flush()
	f.Add(ck.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		rec := newRecording("x.teehistorian", &testHeader)
		_ = readChild(bufio.NewReader(bytes.NewReader(b)), rec)
		rec.finish(nil)
		_ = rec.Info(true)
	})
}

// TestChildMemory: a build child is bounded in memory: with a bound of
// 1 MiB over its start the build fails in the child (ErrChild) and this
// process goes on; with 256 MiB (the positive control) it builds.
func TestChildMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc")
	}
	for _, mem := range []int64{1 << 20, 256 << 20} {
		c := childCache(t)
		c.childMem = mem
		r, err := c.Get(testGame)
		if err != nil {
			t.Fatal(err)
		}
		<-r.Done()
		in := r.Info(false)
		t.Logf("bound %d bytes: %q", mem, in.Error)
		if fail := mem < 2<<20; fail != (in.Error != "") || fail && !strings.Contains(in.Error, ErrChild.Error()) {
			t.Errorf("bound %d bytes: the build's error %q", mem, in.Error)
		}
	}
}

// TestChildCheckpoints: a build child's rough pass hands the parent the
// checkpoints it found (place in the file, tick, settings as of it),
// exactly those an in-process rough pass notes, so that the page's seeks
// work on recordings built in children; and a seek from one of them
// gives the chunk the child built, byte for byte.
func TestChildCheckpoints(t *testing.T) {
	dir := t.TempDir()
	path, err := watchtest.GameCheckpoints(dir, 3*60*50, 11, 10)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	c := NewCache(context.Background(), testSource{dir}, 1)
	c.SetChild(exe)
	children := 0
	c.onChild = func(int) { children++ }
	r, err := c.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	<-r.Done()
	if in := r.Info(false); in.Error != "" || children != 1 {
		t.Fatalf("the child's build: %+v (%d children)", in, children)
	}
	want := scanned(t, NewCache(context.Background(), testSource{dir}, 1), dir, name).ckpts
	r.mu.Lock()
	got := r.ckpts
	r.mu.Unlock()
	if len(want) != 18 || !reflect.DeepEqual(got, want) {
		t.Fatalf("the child's checkpoints (%d) differ from the rough pass's here (%d):\n%+v\n%+v", len(got), len(want), got, want)
	}
	seek := NewCache(context.Background(), testSource{dir}, 1)
	rec := scanned(t, seek, dir, name)
	rec.ckpts = got // the child's
	z, ok := seek.Seek(context.Background(), rec, 13)
	built, _ := r.Chunk(13)
	if !ok || !bytes.Equal(z, built) || len(built) == 0 {
		t.Fatalf("a seek from the child's checkpoints: ok %v, %d bytes, the child's chunk %d bytes", ok, len(z), len(built))
	}
}

// TestChildSeek: a cache that builds in children also seeks in them: the
// seek's replay runs in a child process at the builds' priority (not in
// the request's goroutine, where it would take the games' CPU) and gives
// byte for byte the chunk the same seek gives in this process. A seek
// whose request ended starts no replay.
func TestChildSeek(t *testing.T) {
	dir := t.TempDir()
	path, err := watchtest.GameCheckpoints(dir, 90*50, 11, 10)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	ctx := context.Background()
	in := NewCache(ctx, testSource{dir}, 1)
	recIn := scanned(t, in, dir, name)
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	c := NewCache(ctx, testSource{dir}, 1)
	c.SetChild(exe)
	c.SetNice(MaxNice)
	var nices []int
	c.onChild = func(pid int) {
		if pid == os.Getpid() {
			t.Error("the seek ran in the test's process")
		}
		nices = append(nices, procNice(t, pid))
	}
	rec := scanned(t, c, dir, name)
	for i, k := range []int{3, 9, 16} {
		want, ok := in.Seek(ctx, recIn, k)
		if !ok {
			t.Fatalf("chunk %d: no seek in the process", k)
		}
		got, ok := c.Seek(ctx, rec, k)
		if !ok {
			t.Fatalf("chunk %d: no seek in a child", k)
		}
		if !bytes.Equal(gunzip(t, got), gunzip(t, want)) {
			t.Errorf("chunk %d: the child's seek differs from the process's", k)
		}
		if len(nices) != i+1 || nices[i] != MaxNice {
			t.Fatalf("chunk %d: seek children at nice %v, want one more at %d", k, nices, MaxNice)
		}
	}
	if _, ok := c.Seek(ctx, rec, 19); ok { // from tick 4750: past the file's end
		t.Error("a seek past the file's end")
	}
	n := len(nices)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, ok := c.Seek(cctx, rec, 12); ok {
		t.Error("a seek whose request ended gave a chunk")
	}
	if len(nices) != n {
		t.Error("a seek whose request ended ran a child")
	}
	if _, ok := rec.Chunk(9); ok {
		t.Error("a seek made a built chunk")
	}
}

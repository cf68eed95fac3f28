package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"twserver/teehist"
	"twserver/world"
	"twserver/world/twmap"
)

// skipFile returns a recording on the embedded map that pauses the game at
// tick 1 (so the world is never idle), holds pad bytes of console lines,
// and then skips to tick to (one TICK_SKIP of a few bytes).
func skipFile(pause bool, pad int, to int32) []byte {
	m := twmap.Default()
	settings := Settings{World: world.DefaultConfig(), SnapshotRate: 25}
	e := teehist.NewEncoder()
	e.WriteHeader(&teehist.Header{
		GameUUID: teehist.NameUUID("skip"), StartTime: time.Unix(0, 0), MapName: m.Name, MapSize: m.Size,
		MapSHA256: m.SHA256, MapCRC: m.CRC, PrngDescription: PrngDescription(1),
		Config: ConfigKVs(settings), GameType: "DM",
	})
	e.BeginTick(1)
	if pause {
		e.RecordConsoleCommand(-1, 0, "pause", nil)
	}
	line := strings.Repeat("x", 16000)
	for n := 0; n < pad; n += len(line) {
		e.RecordConsoleCommand(-1, 0, "pad", []string{line})
	}
	e.BeginTick(to)
	e.RecordConsoleCommand(-1, 0, "say", []string{"end"})
	e.Finish()
	return e.Bytes()
}

// runFile replays data with ctx, skipping idle stretches or not, and
// returns the result, the error and how long it took.
func runFile(t testing.TB, ctx context.Context, data []byte, skipIdle bool) (*Result, time.Duration, error) {
	t.Helper()
	res, took, err := replayFile(ctx, data, skipIdle)
	if res == nil {
		t.Fatal(err)
	}
	return res, took, err
}

// replayFile is runFile without a test: a nil result for a file without a
// usable header.
func replayFile(ctx context.Context, data []byte, skipIdle bool) (*Result, time.Duration, error) {
	r := teehist.NewReader(bufio.NewReader(bytes.NewReader(data)))
	h, err := r.ReadHeader()
	if err != nil {
		return nil, 0, err
	}
	e, err := New(h, twmap.Default())
	if err != nil {
		return nil, 0, err
	}
	e.SetSkipIdle(skipIdle)
	start := time.Now()
	res, err := e.Run(ctx, r)
	return res, time.Since(start), err
}

// calibrate replays a skip of FreeTicks/2 ticks in a paused world (within
// every budget) once per test binary and returns how long it took: the
// unit of the timing checks, on a loaded machine or under the race
// detector alike.
var calibrate = sync.OnceValues(func() (*Result, error) {
	res, took, err := replayFile(context.Background(), skipFile(true, 0, FreeTicks/2), true)
	calibrated = took
	return res, err
})

// calibrated is the time calibrate measured.
var calibrated time.Duration

// unit returns calibrate's time, failing t if its replay failed.
func unit(t *testing.T) time.Duration {
	t.Helper()
	if res, err := calibrate(); err != nil || res.Ticks != FreeTicks/2 || !res.Finished {
		t.Fatalf("a skip within the budget: %v, %+v", err, res)
	}
	return calibrated
}

// TestBudget: a small file that skips to near MaxTicks in a world that is
// never idle (paused) is refused with ErrBudget after the ticks its size
// pays for, in about the time of those ticks (a skip of FreeTicks/2 ticks,
// within the budget, replays whole: the unit of time).
func TestBudget(t *testing.T) {
	ctx := context.Background()
	u := unit(t)
	data := skipFile(true, 0, MaxTicks-10)
	if len(data) > 4096 {
		t.Fatalf("the crafted file has %d bytes", len(data))
	}
	res, took, err := runFile(t, ctx, data, true)
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("a %d-byte file skipping %d ticks: %v (%d ticks)", len(data), MaxTicks-10, err, res.Ticks)
	}
	if lim := int32(FreeTicks + TicksPerByte*len(data)); res.Ticks > lim+1 || res.Ticks < FreeTicks {
		t.Errorf("refused at tick %d, budget %d", res.Ticks, lim)
	}
	t.Logf("refused after %d ticks in %v (%v for %d ticks)", res.Ticks, took, u, FreeTicks/2)
	if took > 4*u+time.Second { // about 2u; the whole skip would take 180u
		t.Errorf("refusing took %v", took)
	}
}

// TestSkipIdle: an idle world's skip costs nothing with SetSkipIdle (the
// whole file replays at once) and is charged tick by tick without it.
func TestSkipIdle(t *testing.T) {
	ctx := context.Background()
	u := unit(t)
	data := skipFile(false, 0, MaxTicks-10)
	res, took, err := runFile(t, ctx, data, true)
	if err != nil || res.Ticks != MaxTicks-10 || !res.Finished {
		t.Fatalf("skipping idle: %v, %d ticks, finished %v", err, res.Ticks, res.Finished)
	}
	if took > u/2+time.Second { // simulated, 2^24 ticks would take 186u
		t.Errorf("skipping %d idle ticks took %v", res.Ticks, took)
	}
	if _, _, err := runFile(t, ctx, data, false); !errors.Is(err, ErrBudget) {
		t.Fatalf("without skipping: %v, want ErrBudget", err)
	}
}

// TestCancel: a file whose size pays for millions of ticks stops soon after
// its context ends, in the middle of its one long skip.
func TestCancel(t *testing.T) {
	u := unit(t)
	data := skipFile(true, 1<<20, MaxTicks-10)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, took, err := runFile(t, ctx, data, true)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v after %v (%d ticks)", err, took, res.Ticks)
	}
	if res.Ticks <= 1 || res.Ticks >= MaxTicks-10 {
		t.Fatalf("stopped at tick %d: not inside the skip", res.Ticks)
	}
	t.Logf("stopped at tick %d after %v", res.Ticks, took)
	if took > 100*time.Millisecond+u/10+time.Second { // CheckEvery ticks are u/88
		t.Errorf("stopping took %v", took)
	}
}

// TestSkipIdleSame: skipping idle stretches changes nothing in the result
// of an idle or paused game, a simulated one, and twserver's recordings.
func TestSkipIdleSame(t *testing.T) {
	files := map[string][]byte{"paused": skipFile(true, 0, 3000), "idle": skipFile(false, 0, 3000), "sim": simulate(t, 400, 7)}
	for _, name := range []string{"twserver_lms", "twserver_chat"} {
		b, err := os.ReadFile("../testdata/" + name + ".teehistorian")
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	for name, data := range files {
		a, _, errA := runFile(t, context.Background(), data, false)
		b, _, errB := runFile(t, context.Background(), data, true)
		if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: without skipping %+v %v, with %+v %v", name, a, errA, b, errB)
		}
		if a.Ticks < 300 {
			t.Errorf("%s: %d ticks replayed", name, a.Ticks)
		}
	}
}

package watch

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"twserver/internal/browsertest"
	"twserver/watch/watchtest"
)

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPerf measures the goals of docs/performance.md ("The recorded-game
// viewer"): a 30-minute recording opens and plays, seeks, and 20 viewers
// on 20 recordings. It runs with TWSERVER_WATCH_PERF=1 (minutes of CPU to
// generate the games); TWSERVER_WATCH_PERF_DIR keeps them between runs.
func TestPerf(t *testing.T) {
	if os.Getenv("TWSERVER_WATCH_PERF") != "1" {
		t.Skip("TWSERVER_WATCH_PERF=1 measures the viewer")
	}
	dir := os.Getenv("TWSERVER_WATCH_PERF_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	long := filepath.Join(dir, "long.teehistorian")
	if _, err := os.Stat(long); err != nil {
		c0, t0 := cpuTime(), time.Now()
		p, err := watchtest.Game(dir, 30*60*50, 5)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p, long); err != nil {
			t.Fatal(err)
		}
		t.Logf("generated a 30-minute game in %v (%v CPU)", time.Since(t0), cpuTime()-c0)
	}
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("v%02d.teehistorian", i))
		if _, err := os.Stat(p); err != nil {
			g, err := watchtest.Game(dir, 5*60*50, uint64(100+i))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(g, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	cache := NewCache(context.Background(), testSource{dir}, 0)
	mux := http.NewServeMux()
	NewHandler(cache, Options{Chat: true}).Register(mux, true)
	srv := httptest.NewServer(withCSP(mux))
	defer srv.Close()

	// open: page to first frame, and to playing
	ctx := browsertest.Start(t, 5*time.Minute)
	c0, t0 := cpuTime(), time.Now()
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/watch/long.teehistorian")); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, ctx, 30*time.Second, "first frame", `typeof watchState === 'function' && watchState().tick >= 0 && document.getElementById('minimap').dataset.tick !== undefined`)
	first := time.Since(t0)
	if err := chromedp.Run(ctx, chromedp.Click("#play", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	p0 := time.Now()
	browsertest.Wait(t, ctx, 30*time.Second, "playing", `watchState().playing && watchState().tick > 20`)
	playing := time.Since(p0)
	rec, err := cache.Get("long.teehistorian")
	if err != nil {
		t.Fatal(err)
	}
	<-rec.Done()
	built, builtCPU := time.Since(t0), cpuTime()-c0
	in := rec.Info(false)
	t.Logf("30-minute recording (%d ticks, %d chunks, %d KiB of frames): first frame %v after the page was asked for, playing %v after play was pressed; built in %v (%v CPU, page included)",
		in.LastTick, in.Chunks, rec.bytes>>10, first.Round(time.Millisecond), playing.Round(time.Millisecond), built.Round(time.Millisecond), builtCPU.Round(time.Millisecond))

	// seeks anywhere (the address's moment), paused
	if err := chromedp.Run(ctx, chromedp.Click("#play", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var seeks []time.Duration
	for range 12 {
		sec := 1 + rng.IntN(30*60-2)
		want := sec * 50
		s0 := time.Now()
		browsertest.Eval(t, ctx, fmt.Sprintf(`location.hash = '#t=%d:%02d'`, sec/60, sec%60), nil)
		browsertest.Wait(t, ctx, 5*time.Second, "seek", fmt.Sprintf(`watchState().tick === %d`, want))
		seeks = append(seeks, time.Since(s0))
	}
	sort.Slice(seeks, func(i, j int) bool { return seeks[i] < seeks[j] })
	t.Logf("12 seeks: median %v, max %v (with the test's 20 ms polling)", seeks[6].Round(time.Millisecond), seeks[11].Round(time.Millisecond))

	// seeks on a file opened for the first time: a new cache, the page
	// opened at a late moment, then seeks anywhere while it builds (the
	// moment shown rough, positions only, until its chunk is built)
	{
		fresh := NewCache(context.Background(), testSource{dir}, 0)
		fmux := http.NewServeMux()
		NewHandler(fresh, Options{Chat: true}).Register(fmux, true)
		fsrv := httptest.NewServer(withCSP(fmux))
		defer fsrv.Close()
		f0 := time.Now()
		if err := chromedp.Run(ctx, chromedp.Navigate(fsrv.URL+"/watch/long.teehistorian#t=29:00")); err != nil {
			t.Fatal(err)
		}
		browsertest.Wait(t, ctx, 30*time.Second, "fresh open at 29:00", `typeof watchState === 'function' && watchState().tick === 87000`)
		var rough bool
		browsertest.Eval(t, ctx, `watchState().rough`, &rough)
		t.Logf("fresh file opened at 29:00: the moment shown %v after the page was asked for (rough %v)", time.Since(f0).Round(time.Millisecond), rough)
		var fseeks []string
		for range 6 {
			sec := 1 + rng.IntN(30*60-2)
			s0 := time.Now()
			browsertest.Eval(t, ctx, fmt.Sprintf(`location.hash = '#t=%d:%02d'`, sec/60, sec%60), nil)
			browsertest.Wait(t, ctx, 5*time.Second, "fresh seek", fmt.Sprintf(`watchState().tick === %d`, sec*50))
			d := time.Since(s0)
			browsertest.Eval(t, ctx, `watchState().rough`, &rough)
			fseeks = append(fseeks, fmt.Sprintf("%d:%02d %v rough=%v", sec/60, sec%60, d.Round(time.Millisecond), rough))
		}
		r, _ := fresh.Get("long.teehistorian")
		<-r.Done()
		t.Logf("seeks on the fresh file while it was built (built %v after it was opened): %s", time.Since(f0).Round(time.Millisecond), strings.Join(fseeks, "; "))
	}

	// a seek beyond the built part of a file built for the first time: when
	// the rough frames and the built chunk of a late moment are there after
	// the file was opened, at the default priority and at the game server's
	// (SetNice(MaxNice)), on a loaded machine
	for _, nice := range []int{0, MaxNice} {
		fresh := NewCache(context.Background(), testSource{dir}, 0)
		fresh.SetNice(nice)
		f0 := time.Now()
		r, err := fresh.Get("long.teehistorian")
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range []int{60, 15 * 60, 29 * 60} {
			k := sec * 50 / ChunkTicks
			var rough time.Duration
			for {
				if _, ok := r.Chunk(k); ok {
					break
				}
				if _, ok := r.Rough(k); ok && rough == 0 {
					rough = time.Since(f0)
				}
				time.Sleep(2 * time.Millisecond)
			}
			t.Logf("fresh file, nice %d: %d:%02d rough after %v, built after %v", nice, sec/60, sec%60,
				rough.Round(time.Millisecond), time.Since(f0).Round(time.Millisecond))
		}
	}

	// 20 viewers on 20 recordings (built first), each asking for the info
	// and then a chunk per ChunkTicks of play at 1x, as the page does
	for i := range 20 {
		r, err := cache.Get(fmt.Sprintf("v%02d.teehistorian", i))
		if err != nil {
			t.Fatal(err)
		}
		<-r.Done()
	}
	const span = 60 * time.Second
	client := srv.Client()
	get := func(url string) {
		resp, err := client.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	c1, w1 := cpuTime(), time.Now()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := srv.URL + fmt.Sprintf("/watch/v%02d.teehistorian", i)
			get(base)
			get(base + "/info")
			get(base + "/map")
			for k := 0; time.Since(w1) < span; k++ {
				get(fmt.Sprintf("%s/chunk/%d", base, k))
				time.Sleep(ChunkTicks * 20 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	used := cpuTime() - c1
	t.Logf("20 viewers on 20 recordings for %v: %v CPU = %.2f%% of a core (server and the viewers' HTTP clients)",
		time.Since(w1).Round(time.Second), used.Round(time.Millisecond), 100*used.Seconds()/time.Since(w1).Seconds())
}

// TestPerfSeek measures seeks into the part of a fresh 30-minute
// recording with checkpoints (record.checkpoint_interval's default) that
// the build has not reached: the time from asking for a moment's chunk to
// having it whole, for 24 random moments, and the time from opening the
// file to its first chunk; in this process, and in child processes at
// nice 19 as the game server's page does (builds and seeks).
func TestPerfSeek(t *testing.T) {
	if os.Getenv("TWSERVER_WATCH_PERF") != "1" {
		t.Skip("TWSERVER_WATCH_PERF=1 measures the viewer")
	}
	dir := t.TempDir()
	path, err := watchtest.Game(dir, 30*60*50, 3)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, child := range []string{"", exe} {
		t.Run(map[string]string{"": "process", exe: "children"}[child], func(t *testing.T) {
			perfSeek(t, dir, filepath.Base(path), child)
		})
	}
}

// perfSeek is TestPerfSeek in a cache building in children of exe ("":
// in this process).
func perfSeek(t *testing.T, dir, name, exe string) {
	rng := rand.New(rand.NewPCG(5, 6))
	var seeks []time.Duration
	var opens []time.Duration
	newCache := func() *Cache { // as the game server's page: children at nice 19
		c := NewCache(context.Background(), testSource{dir}, 1)
		if exe != "" {
			c.SetChild(exe)
			c.SetNice(MaxNice)
		}
		return c
	}
	for round := range 4 {
		c := newCache()
		t0 := time.Now()
		rec, err := c.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, ok := rec.Chunk(0); ok {
				break
			}
			time.Sleep(time.Millisecond)
		}
		opens = append(opens, time.Since(t0))
		for n := 0; n < 6; {
			k := 20 + rng.IntN(340) // 1:40 to 29:55
			if _, ok := rec.Chunk(k); ok {
				t.Logf("round %d: chunk %d built already, another one", round, k)
				continue
			}
			t1 := time.Now()
			for {
				if _, ok := c.Seek(context.Background(), rec, k); ok {
					break
				}
				time.Sleep(time.Millisecond) // the rough pass has not noted its checkpoint yet
			}
			seeks = append(seeks, time.Since(t1))
			n++
		}
		<-rec.Done()
	}
	sort.Slice(seeks, func(i, j int) bool { return seeks[i] < seeks[j] })
	t.Logf("30-minute file: %d seeks beyond the built part: median %v, max %v; first chunk after opening: %v",
		len(seeks), seeks[len(seeks)/2].Round(time.Millisecond), seeks[len(seeks)-1].Round(time.Millisecond), opens)

	// A viewer seeking again and again: 120 seeks to chunks nothing built,
	// two at a time (MaxSeeks), on a file only scanned; the CPU this
	// process spent on them (its own, not its children's).
	c := newCache()
	rec := scanned(t, c, dir, name)
	cpu0, t0 := cpuTime(), time.Now()
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for k := 20 + g; k < 140; k += 2 {
				if _, ok := c.Seek(context.Background(), rec, k); !ok {
					t.Errorf("chunk %d: no seek", k)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("120 seeks, two at a time: %v, this process's CPU %v (%v a seek)", time.Since(t0).Round(time.Millisecond),
		(cpuTime() - cpu0).Round(time.Millisecond), ((cpuTime() - cpu0) / 120).Round(100*time.Microsecond))
}

package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"twserver/live"
	"twserver/netproto"
)

// listenLoopback listens on a free loopback TCP port.
func listenLoopback(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// tcpPair returns both ends of a loopback TCP connection: the server's
// end (a viewer's hijacked connection) and the client's.
func tcpPair(t testing.TB) (srv, cli *net.TCPConn) {
	t.Helper()
	ln := listenLoopback(t)
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return s.(*net.TCPConn), c.(*net.TCPConn)
}

// fixedEncoder encodes every frame as msgs with the frame's Seq (no
// allocation: the writer's own cost is what is measured).
func fixedEncoder(msgs *streamMsgs) func(*live.Frame) any {
	return func(f *live.Frame) any {
		msgs.seq = f.Seq
		return msgs
	}
}

// publish publishes an empty frame on hub.
func publish(hub *live.Hub) {
	f := hub.NewFrame()
	hub.Publish(f)
}

// countFrames reads r to its end and counts the "frame" messages.
func countFrames(r io.Reader, n *atomic.Int64) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if sc.Text() == "event: frame" {
			n.Add(1)
		}
	}
}

// TestStreamSlowViewer: a viewer that reads nothing never delays the
// writer nor a viewer that reads; it keeps its unwritten rest, skips
// frames, and is dropped once stalled for StreamWriteTimeout.
func TestStreamSlowViewer(t *testing.T) {
	hub := live.NewHub()
	big := bytes.Repeat([]byte("x"), 64<<10)
	s := newStreamer(hub, 0, fixedEncoder(&streamMsgs{frame: appendSSE(nil, "frame", big)}), false)

	slowSrv, slowCli := tcpPair(t)
	_ = slowSrv.SetWriteBuffer(16 << 10)
	_ = slowCli.SetReadBuffer(16 << 10)
	fastSrv, fastCli := tcpPair(t)
	var got atomic.Int64
	go countFrames(fastCli, &got)

	now := time.Unix(1_000_000, 0)
	slow, fast := newViewer(slowSrv, now), newViewer(fastSrv, now)
	if slow.raw == nil {
		t.Fatal("a TCP connection has no raw write")
	}
	s.viewers = []*viewer{slow, fast}
	const frames = 50
	for i := range frames {
		publish(hub)
		t0 := time.Now()
		s.writeFrame(now.Add(time.Duration(i) * time.Millisecond))
		if d := time.Since(t0); d > time.Second {
			t.Fatalf("frame %d: the writer took %v", i+1, d)
		}
		// the fast viewer reads everything before the next frame
		for deadline := time.Now().Add(5 * time.Second); got.Load() < int64(i+1) && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	if got.Load() != frames {
		t.Fatalf("the reading viewer got %d of %d frames", got.Load(), frames)
	}
	if slow.off == len(slow.buf) || slow.lastSeq >= frames || len(s.viewers) != 2 {
		t.Fatalf("the slow viewer: %d of %d bytes written, last frame %d, %d viewers", slow.off, len(slow.buf), slow.lastSeq, len(s.viewers))
	}
	publish(hub)
	s.writeFrame(now.Add(StreamWriteTimeout + time.Second))
	select {
	case <-slow.done:
	default:
		t.Fatal("the stalled viewer was not dropped")
	}
	if len(s.viewers) != 1 || s.viewers[0] != fast {
		t.Fatalf("viewers %v", s.viewers)
	}
	if _, err := slowCli.Read(make([]byte, 1)); err != nil {
		t.Fatalf("the dropped viewer's buffered bytes: %v", err)
	}
}

// TestStreamGone: a viewer whose request ended is dropped at the next
// frame, and the writer stops with its last viewer.
func TestStreamGone(t *testing.T) {
	hub := live.NewHub()
	s := newStreamer(hub, 0, fixedEncoder(&streamMsgs{frame: appendSSE(nil, "frame", []byte("{}"))}), false)
	srv, cli := tcpPair(t)
	var got atomic.Int64
	go countFrames(cli, &got)
	publish(hub)
	v := newViewer(srv, time.Now())
	s.join(v)
	for deadline := time.Now().Add(5 * time.Second); got.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got.Load() == 0 {
		t.Fatal("a joining viewer gets no first frame")
	}
	if hub.Readers() != 1 {
		t.Errorf("%d hub readers, want 1", hub.Readers())
	}
	v.gone.Store(true)
	s.poke()
	select {
	case <-v.done:
	case <-time.After(5 * time.Second):
		t.Fatal("a gone viewer was not dropped")
	}
	for deadline := time.Now().Add(5 * time.Second); hub.Readers() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if hub.Readers() != 0 {
		t.Error("the writer still reads the hub without viewers")
	}
}

// TestStreamShutdown: the end of ServeListener's context ends the live
// streams (their connections are the handler's, not the HTTP server's).
func TestStreamShutdown(t *testing.T) {
	a := startGame(t, "shutdown", "dm")
	h, err := New([]Game{{Port: int(a.Addr().Port()), Server: a}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln := listenLoopback(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- h.ServeListener(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/api/games/" + strconv.Itoa(int(a.Addr().Port())) + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	r := bufio.NewReader(resp.Body)
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "event: ") {
		t.Fatalf("first line %q, %v", line, err)
	}
	cancel()
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, r); ended <- err }()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream outlived the server")
	}
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("ServeListener did not return")
	}
	for deadline := time.Now().Add(5 * time.Second); h.streamCount() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := h.streamCount(); n != 0 {
		t.Errorf("%d streams counted after the end", n)
	}
}

// BenchmarkStreamWrite: the writer's cost of one frame to 50 viewers on
// loopback TCP (the viewers read on other goroutines), by frame size and
// budget (the frames 100 ms apart): no allocation per frame nor per
// viewer (only the "game" message, encoded once a second); with
// StreamWritesPerSecond each viewer is written every twentieth frame
// (StreamMaxInterval), with
// budget=unlimited every frame. ns/write is nearly all the kernel's
// write (on loopback the sender also delivers to the reader).
func BenchmarkStreamWrite(b *testing.B) {
	for _, budget := range []int{StreamWritesPerSecond, 1 << 20} {
		name := "budget=" + strconv.Itoa(budget)
		if budget > MaxStreams*10 {
			name = "budget=unlimited"
		}
		for _, size := range []int{300, 1200, 4800} {
			b.Run(name+"/bytes="+strconv.Itoa(size), func(b *testing.B) { benchStreamWrite(b, budget, size) })
		}
	}
}

// benchStreamWrite writes frames of size bytes to 50 viewers.
func benchStreamWrite(b *testing.B, budget, size int) {
	const viewers = 50
	hub := live.NewHub()
	s := newStreamer(hub, 0, fixedEncoder(&streamMsgs{frame: appendSSE(nil, "frame", bytes.Repeat([]byte("1"), size))}), false)
	s.budget = budget
	now := time.Now()
	for range viewers {
		srv, cli := tcpPair(b)
		buf := make([]byte, 64<<10)
		go func() {
			for {
				if _, err := cli.Read(buf); err != nil {
					return
				}
			}
		}()
		s.viewers = append(s.viewers, newViewer(srv, now))
	}
	for range 20 { // the first writes, and every viewer's buffer at its size
		publish(hub)
		now = now.Add(frameInterval)
		s.writeFrame(now)
	}
	w0 := totalWrites(s.viewers)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		publish(hub)
		now = now.Add(frameInterval)
		if i%1000 == 0 { // the frames' clock runs fast: keep the viewers under StreamMaxAge
			for _, v := range s.viewers {
				v.start = now
			}
		}
		s.writeFrame(now)
	}
	b.StopTimer()
	if len(s.viewers) != viewers {
		b.Fatalf("%d viewers left", len(s.viewers))
	}
	w := totalWrites(s.viewers) - w0
	b.ReportMetric(float64(w)/float64(b.N), "writes/frame")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(w, 1)), "ns/write")
}

// totalWrites is the writes made to vs.
func totalWrites(vs []*viewer) int {
	n := 0
	for _, v := range vs {
		n += v.writes
	}
	return n
}

// seqEncoder encodes every frame as a "frame" message {"seq":N,"pad":"…"}
// with pad bytes of padding, and its newest event.
func seqEncoder(pad int) func(*live.Frame) any {
	return func(f *live.Frame) any {
		b := strconv.AppendUint([]byte(`{"seq":`), f.Seq, 10)
		b = append(b, `,"pad":"`...)
		b = append(b, bytes.Repeat([]byte("x"), pad)...)
		b = append(b, `"}`...)
		m := &streamMsgs{frame: appendSSE(nil, "frame", b), seq: f.Seq}
		if n := len(f.Events); n > 0 {
			m.last = f.Events[n-1].Seq
		}
		return m
	}
}

// sseLog reads a live stream and keeps what it got: the kinds of its
// events in order, the frames' seqs (seqEncoder), and the first malformed
// or partial event.
type sseLog struct {
	mu    sync.Mutex
	kinds []string
	seqs  []uint64
	bad   string
}

// read reads r to its end.
func (l *sseLog) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		ev, err := br.ReadString('\n')
		if err != nil {
			if ev != "" {
				l.fail("partial event: " + ev)
			}
			return
		}
		data, err1 := br.ReadString('\n')
		blank, err2 := br.ReadString('\n')
		kind, ok1 := strings.CutPrefix(ev, "event: ")
		js, ok2 := strings.CutPrefix(data, "data: ")
		if err1 != nil || err2 != nil || !ok1 || !ok2 || blank != "\n" || !json.Valid([]byte(js)) {
			l.fail(fmt.Sprintf("malformed event %.40q %.40q %q (%v, %v)", ev, data, blank, err1, err2))
			return
		}
		kind = strings.TrimSuffix(kind, "\n")
		l.mu.Lock()
		l.kinds = append(l.kinds, kind)
		if kind == "frame" {
			var f struct{ Seq uint64 }
			_ = json.Unmarshal([]byte(js), &f)
			l.seqs = append(l.seqs, f.Seq)
		}
		l.mu.Unlock()
	}
}

// fail keeps the first malformed event.
func (l *sseLog) fail(what string) {
	l.mu.Lock()
	if l.bad == "" {
		l.bad = what
	}
	l.mu.Unlock()
}

// frames returns the frames' seqs got so far.
func (l *sseLog) frames() []uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seqs)
}

// waitFor waits until l has frame seq; false after 5 s.
func (l *sseLog) waitFor(seq uint64) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if fs := l.frames(); len(fs) > 0 && fs[len(fs)-1] >= seq {
			return true
		}
	}
	return false
}

// readViewer returns a viewer on loopback TCP whose client end l reads.
func readViewer(t *testing.T, now time.Time, l *sseLog) *viewer {
	srv, cli := tcpPair(t)
	go l.read(cli)
	return newViewer(srv, now)
}

// frameGap is the time between frame i and i+1 as the loop publishes
// them: 4 and 6 ticks apart.
func frameGap(i int) time.Duration {
	if i%2 == 0 {
		return 4 * netproto.TickDuration
	}
	return 6 * netproto.TickDuration
}

// TestStreamOneViewer: a game's only viewer gets every frame in a write
// of its own as the frame comes.
func TestStreamOneViewer(t *testing.T) {
	hub := live.NewHub()
	s := newStreamer(hub, 0, seqEncoder(100), false)
	var l sseLog
	now := time.Unix(1_000_000, 0)
	v := readViewer(t, now, &l)
	s.viewers = []*viewer{v}
	const frames = 30
	for i := 1; i <= frames; i++ {
		publish(hub)
		now = now.Add(frameGap(i))
		s.writeFrame(now)
		if v.writes != i {
			t.Fatalf("frame %d: %d writes", i, v.writes)
		}
		if !l.waitFor(uint64(i)) {
			t.Fatalf("frame %d not received: %v", i, l.frames())
		}
	}
	if got := l.frames(); len(got) != frames || l.bad != "" {
		t.Fatalf("frames %v, %s", got, l.bad)
	}
}

// TestStreamBudget: with many viewers the game's writes stay within
// StreamWritesPerSecond, spread over the frames, and each viewer is
// written at most every viewers/StreamWritesPerSecond seconds, yet a
// viewer that reads gets every frame in order as whole events; a viewer
// that reads nothing is dropped StreamWriteTimeout after its writes
// stalled, and nobody waits for it.
func TestStreamBudget(t *testing.T) {
	const fast = 40
	hub := live.NewHub()
	s := newStreamer(hub, 0, seqEncoder(4000), false)
	now := time.Unix(1_000_000, 0)
	logs := make([]sseLog, fast)
	for i := range logs {
		s.viewers = append(s.viewers, readViewer(t, now, &logs[i]))
	}
	slowSrv, slowCli := tcpPair(t)
	_ = slowSrv.SetWriteBuffer(16 << 10)
	_ = slowCli.SetReadBuffer(16 << 10)
	slow := newViewer(slowSrv, now)
	s.viewers = append(s.viewers, slow)
	all := slices.Clone(s.viewers)
	every := s.interval(fast + 1)
	if every <= frameInterval {
		t.Fatalf("%d viewers are written every %v", fast+1, every)
	}

	const frames = 100
	start := now
	var stalledAt, droppedAt time.Time
	maxPerFrame := 0
	for i := 1; i <= frames; i++ {
		publish(hub)
		gap := frameGap(i)
		now = now.Add(gap)
		w0 := totalWrites(all)
		t0 := time.Now()
		s.writeFrame(now)
		if d := time.Since(t0); d > time.Second {
			t.Fatalf("frame %d: the writer took %v", i, d)
		}
		w := totalWrites(all) - w0
		if droppedAt.IsZero() && !slices.Contains(s.viewers, slow) {
			droppedAt = now
		}
		if i > 1 {
			// the budget accrued since the last frame, its fraction carried
			if limit := int(float64(StreamWritesPerSecond)*gap.Seconds()) + 1; w > limit {
				t.Errorf("frame %d: %d writes, the budget allows %d", i, w, limit)
			}
			maxPerFrame = max(maxPerFrame, w)
		}
		if stalledAt.IsZero() && !slow.stalled.IsZero() {
			stalledAt = slow.stalled
		}
	}
	elapsed := now.Sub(start)
	if stalledAt.IsZero() || droppedAt.IsZero() {
		t.Fatalf("the slow viewer: stalled at %v, dropped at %v", stalledAt, droppedAt)
	}
	if d := droppedAt.Sub(stalledAt); d < StreamWriteTimeout || d > StreamWriteTimeout+2*StreamMaxInterval {
		t.Errorf("the slow viewer was dropped %v after it stalled", d)
	}
	for i, v := range all {
		// the first write comes with the first frame, then one per interval
		if limit := 1 + int(elapsed/every); v.writes > limit {
			t.Errorf("viewer %d: %d writes in %v, want at most %d", i, v.writes, elapsed, limit)
		}
	}
	total := totalWrites(all)
	if limit := fast + 1 + int(elapsed.Seconds()*StreamWritesPerSecond) + 1; total > limit {
		t.Errorf("%d writes in %v, the budget allows %d", total, elapsed, limit)
	}
	t.Logf("%d viewers, %d frames in %v: %d writes (every %v per viewer), at most %d in one frame",
		fast+1, frames, elapsed, total, every, maxPerFrame)
	// every frame reaches every reading viewer, in order, as whole events
	for i := range logs {
		l := &logs[i]
		if !l.waitFor(frames - uint64(every/frameInterval) - 2) {
			t.Fatalf("viewer %d: frames %v", i, l.frames())
		}
		got := l.frames()
		for k, seq := range got {
			if seq != uint64(k+1) {
				t.Fatalf("viewer %d: frame %d has seq %d: %v", i, k, seq, got)
			}
		}
		if l.bad != "" {
			t.Fatalf("viewer %d: %s", i, l.bad)
		}
	}
}

// TestStreamPendingBound: frames pending for a viewer between its turns
// stay within StreamPendingBytes: the oldest whole frames are dropped,
// the "game" and "feed" messages kept in their place, and what the
// viewer gets are whole events, its frames in order.
func TestStreamPendingBound(t *testing.T) {
	const pad = 60 << 10
	hub := live.NewHub()
	s := newStreamer(hub, 0, seqEncoder(pad), true)
	s.budget = 1 // one viewer: a write a second
	now := time.Unix(1_000_000, 0)
	var l sseLog
	v := readViewer(t, now, &l)
	s.viewers = []*viewer{v}
	keep := StreamPendingBytes / (pad + 100)
	const frames = 11 // the first is written at once, the next write with the eleventh
	for i := 1; i <= frames; i++ {
		f := hub.NewFrame()
		if i >= 3 { // an event with the third frame, carried by all later ones
			f.Events = append(f.Events, live.Event{Seq: 1, Kind: live.EventJoin, Name: "joiner"})
		}
		hub.Publish(f)
		now = now.Add(frameInterval)
		s.writeFrame(now)
		if len(v.buf) > StreamPendingBytes || v.nframes > keep {
			t.Fatalf("frame %d: %d bytes and %d frames pending", i, len(v.buf), v.nframes)
		}
	}
	if v.writes != 2 {
		t.Fatalf("%d writes, want 2", v.writes)
	}
	if !l.waitFor(frames) {
		t.Fatalf("frames %v", l.frames())
	}
	want := []uint64{1}
	for seq := frames - keep + 1; seq <= frames; seq++ {
		want = append(want, uint64(seq))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !slices.Equal(l.seqs, want) || l.bad != "" {
		t.Fatalf("frames %v, want %v (%s)", l.seqs, want, l.bad)
	}
	// the game message first, the feed line where its frame was
	wantKinds := []string{"game", "frame", "feed"}
	for range keep {
		wantKinds = append(wantKinds, "frame")
	}
	if !slices.Equal(l.kinds, wantKinds) {
		t.Fatalf("events %v, want %v", l.kinds, wantKinds)
	}
}

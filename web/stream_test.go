package web

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"twserver/live"
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
	for deadline := time.Now().Add(5 * time.Second); h.streams.Load() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := h.streams.Load(); n != 0 {
		t.Errorf("%d streams counted after the end", n)
	}
}

// BenchmarkStreamWrite: the writer's cost of one frame to 50 viewers on
// loopback TCP (the viewers read on other goroutines), by frame size: no
// allocation per frame nor per viewer; ns/viewer-write is nearly all the
// kernel's write (on loopback the sender also delivers to the reader).
func BenchmarkStreamWrite(b *testing.B) {
	for _, size := range []int{300, 1200, 4800} {
		b.Run("bytes="+strconv.Itoa(size), func(b *testing.B) { benchStreamWrite(b, size) })
	}
}

// benchStreamWrite writes frames of size bytes to 50 viewers.
func benchStreamWrite(b *testing.B, size int) {
	const viewers = 50
	hub := live.NewHub()
	s := newStreamer(hub, 0, fixedEncoder(&streamMsgs{frame: appendSSE(nil, "frame", bytes.Repeat([]byte("1"), size))}), false)
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
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		publish(hub)
		s.writeFrame(now)
	}
	b.StopTimer()
	if len(s.viewers) != viewers {
		b.Fatalf("%d viewers left", len(s.viewers))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*viewers), "ns/viewer-write")
}

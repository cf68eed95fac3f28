package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"twserver/internal/refserver"
)

// TestEconAndFIFO runs the binary's run with [econ] and server.input_fifo:
// an operator logs into the econ, runs players, a script writes a say
// command into the FIFO and the econ shows its chat line; SIGINT closes
// the econ connection ("Closing console") and the process exits 0 within 5 s.
func TestEconAndFIFO(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	fifo := filepath.Join(dir, "commands")
	cfg := filepath.Join(dir, "server.toml")
	body := fmt.Sprintf("[server]\nbind = \"127.0.0.1\"\nport = 0\ninput_fifo = %q\n[econ]\nport = %d\npassword = \"pw\"\noutput_level = 2\n[log]\nformat = \"json\"\n", fifo, port)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	errb, done := startRun(t, []string{"-config", cfg, "-no-console"}, "econ listening", 1)
	nc, r, next := econLogin(t, port, "pw", nil)
	fmt.Fprint(nc, "players\n")
	if l := next("client(s), map"); !strings.HasSuffix(strings.SplitN(l, "]: ", 2)[0], "][server") {
		t.Errorf("players line %q", l)
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "say written to the fifo")
	f.Close()
	next("[chat]: *** written to the fifo")

	t0 := time.Now()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	next("[econ]: client dropped. cid=0 addr=" + nc.LocalAddr().String() + " reason='Closing console'")
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if rest, err := io.ReadAll(r); err != nil || string(rest) != "\x00Closing console\n\x00\x00" {
		t.Errorf("after the drop line: %q %v (want the reason, then the end)", rest, err)
	}
	waitExit(t, errb, done, t0)
	for _, want := range []string{"econ login", "econ command", "input fifo command"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
}

// econLogin connects to the econ on 127.0.0.1:port and logs in; next
// returns the next line whose text contains sub (frames are "text\n\0\0",
// read up to their first zero; the second zero starts the next read) and
// adds every line it reads to *seen.
func econLogin(t *testing.T, port int, pw string, seen *[]string) (net.Conn, *bufio.Reader, func(sub string) string) {
	t.Helper()
	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	r := bufio.NewReader(nc)
	next := func(sub string) string {
		t.Helper()
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			s, err := r.ReadString(0)
			if err != nil {
				t.Fatalf("waiting for %q: %v", sub, err)
			}
			s = strings.TrimPrefix(s, "\x00") // the second zero of the last frame
			if s == "" {
				continue
			}
			if !strings.HasSuffix(s, "\n\x00") {
				t.Fatalf("frame %q", s)
			}
			if seen != nil {
				*seen = append(*seen, s)
			}
			if strings.Contains(s, sub) {
				return strings.TrimSuffix(s, "\n\x00")
			}
		}
	}
	next("Enter password:")
	fmt.Fprint(nc, pw+"\n")
	next("Authentication successful.")
	return nc, r, next
}

// TestTwoGamesEcon: two games in one process, each with its own econ: a
// command in one runs in that game only, and each econ shows only its own
// game's lines.
func TestTwoGamesEcon(t *testing.T) {
	dir := t.TempDir()
	var args []string
	ports := [2]int{}
	for i := range ports {
		ports[i] = freePort(t)
		p := filepath.Join(dir, fmt.Sprintf("g%d.toml", i))
		body := fmt.Sprintf("[server]\nbind = \"127.0.0.1\"\nport = %d\n[econ]\nport = %d\npassword = \"pw%d\"\n", refserver.FreeUDPPort(t), ports[i], i)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-config", p)
	}
	errb, done := startRun(t, append(args, "-no-console"), "econ listening", 2)
	var seenA, seenB []string
	a, _, nextA := econLogin(t, ports[0], "pw0", &seenA)
	b, _, nextB := econLogin(t, ports[1], "pw1", &seenB)
	fmt.Fprint(a, "say only in A\n")
	nextA("[chat]: *** only in A")
	fmt.Fprint(b, "say only in B\n")
	nextB("[chat]: *** only in B")
	// a players round trip in each: everything before it was delivered
	fmt.Fprint(a, "players\n")
	nextA("client(s), map")
	fmt.Fprint(b, "players\n")
	nextB("client(s), map")
	if all := strings.Join(seenA, ""); strings.Contains(all, "only in B") {
		t.Errorf("A saw B's lines: %q", seenA)
	}
	if all := strings.Join(seenB, ""); strings.Contains(all, "only in A") {
		t.Errorf("B saw A's lines: %q", seenB)
	}
	t0 := time.Now()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	waitExit(t, errb, done, t0)
}

// startRun runs the binary's run with args until its log holds want n times.
func startRun(t *testing.T, args []string, want string, n int) (*lockedBuf, <-chan int) {
	t.Helper()
	errb := &lockedBuf{}
	done := make(chan int, 1)
	go func() { done <- run(args, strings.NewReader(""), errb) }()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(errb.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("not started: %s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errb, done
}

// waitExit requires run to return 0 within 5 s of t0 (the signal).
func waitExit(t *testing.T, errb *lockedBuf, done <-chan int, t0 time.Time) {
	t.Helper()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d\n%s", code, errb.String())
		}
	case <-time.After(6 * time.Second):
		t.Fatalf("no exit after SIGINT:\n%s", errb.String())
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("shutdown took %v", d)
	}
}

// TestConsoleStartErrors: an econ port in use and a FIFO path that is not
// a named pipe stop the start with exit 1 and a message naming the key.
func TestConsoleStartErrors(t *testing.T) {
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	regular := filepath.Join(dir, "regular")
	if err := os.WriteFile(regular, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ body, want string }{
		{fmt.Sprintf("[econ]\nport = %d\npassword = \"pw\"\n", busy.Addr().(*net.TCPAddr).Port), "econ.bind/econ.port: "},
		{fmt.Sprintf("[server]\ninput_fifo = %q\n", regular), "server.input_fifo: "},
	} {
		cfg := filepath.Join(dir, "server.toml")
		if err := os.WriteFile(cfg, []byte("[server]\nbind = \"127.0.0.1\"\nport = 0\n"+strings.TrimPrefix(tt.body, "[server]\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		var errb lockedBuf
		if code := run([]string{"-config", cfg, "-no-console"}, strings.NewReader(""), &errb); code != 1 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%q: exit %d, log %s", tt.want, code, errb.String())
		}
	}
}

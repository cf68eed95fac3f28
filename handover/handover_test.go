package handover

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// modeVar makes the test binary act as the new process of a handover.
const modeVar = "HANDOVER_TEST_MODE"

// printExeVar makes the test binary print Executable() and exit.
const printExeVar = "HANDOVER_TEST_PRINT_EXE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(modeVar); mode != "" {
		os.Exit(child(mode))
	}
	if os.Getenv(printExeVar) != "" {
		p, err := Executable()
		if err != nil {
			os.Exit(1)
		}
		fmt.Print(p)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestExecutableKeepsSymlink: a binary started through a symbolic link
// (an operator's current -> releases/v1) keeps that path for its upgrade,
// so pointing the link at a new release and upgrading starts the new
// release; before, the link was resolved at start and the upgrade started
// the old release again, and said it served. Started by a name looked up
// in PATH it keeps the PATH entry; under a renamed argv[0], the binary.
func TestExecutableKeepsSymlink(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rel := filepath.Join(dir, "releases", "v1")
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rel, "twserver"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("releases", "v1"), filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(dir, "current", "twserver")
	real, _ := filepath.EvalSymlinks(filepath.Join(rel, "twserver"))
	for _, tt := range []struct {
		name, path, arg0, pathEnv, want string
	}{
		{"by the link", viaLink, viaLink, "", viaLink},
		{"by PATH", viaLink, "twserver", filepath.Join(dir, "current"), viaLink},
		{"renamed argv[0]", viaLink, "not-the-binary", "", real},
	} {
		cmd := exec.Command(tt.path)
		cmd.Args[0] = tt.arg0
		cmd.Env = append(os.Environ(), printExeVar+"=1", "PATH="+tt.pathEnv)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(out) != tt.want {
			t.Errorf("%s: Executable() = %q, want %q", tt.name, out, tt.want)
		}
	}
}

// child is the new process: it reads the state, takes the socket and
// answers as mode says.
func child(mode string) int {
	in, err := Inherited()
	if err != nil || in == nil {
		return 10
	}
	switch mode {
	case "exit":
		return 3
	case "hang":
		time.Sleep(time.Minute)
		return 0
	}
	if err := in.Prepared(); err != nil {
		return 11
	}
	if mode == "hangready" {
		time.Sleep(time.Minute)
		return 0
	}
	st, err := in.State()
	if err != nil {
		_ = in.Refuse(err.Error())
		return 4
	}
	if len(st.Games) != 1 {
		_ = in.Refuse("no game")
		return 4
	}
	f := in.File("udp/" + st.Games[0].Addr)
	if f == nil {
		_ = in.Refuse("no socket for " + st.Games[0].Addr)
		return 4
	}
	pc, err := net.FilePacketConn(f)
	if err != nil {
		_ = in.Refuse(err.Error())
		return 4
	}
	// the datagram the parent sent before the handover waits in the
	// kernel: read it on the inherited socket and answer it.
	buf := make([]byte, 64)
	_ = pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, from, err := pc.ReadFrom(buf)
	if err != nil {
		_ = in.Refuse(err.Error())
		return 4
	}
	if _, err := pc.WriteTo(append([]byte("echo "), buf[:n]...), from); err != nil {
		return 5
	}
	if err := in.Ready(); err != nil {
		return 6
	}
	return 0
}

// startChild starts the test binary as the new process in mode with one
// UDP socket; it returns the child, the socket's address and a peer.
func startChild(t *testing.T, mode string) (*Child, *net.UDPConn, *net.UDPConn) {
	t.Helper()
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	f, err := srv.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	peer, err := net.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	if _, err := peer.Write([]byte("before")); err != nil {
		t.Fatal(err)
	}
	path, err := Executable()
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.LocalAddr().String()
	t.Setenv(modeVar, mode)
	var stderr bytes.Buffer
	c, err := Start(path, []string{"-test.run=^$"}, []File{{Name: "udp/" + addr, F: f}}, nil, &stderr, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv, peer
}

// TestReady: the new process reads the datagram that waited in the kernel
// on the inherited socket, answers it and reports ready.
func TestReady(t *testing.T) {
	c, srv, peer := startChild(t, "ready")
	if r, detail := c.Prepared(PrepareTimeout); r != Ready {
		t.Fatalf("prepared: %v (%s)", r, detail)
	}
	if err := c.Hand(State{Games: []GameState{{Addr: srv.LocalAddr().String()}}}); err != nil {
		t.Fatal(err)
	}
	r, detail := c.Wait(ReadyTimeout)
	if r != Ready {
		t.Fatalf("result %v (%s), want ready", r, detail)
	}
	buf := make([]byte, 64)
	_ = peer.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := peer.Read(buf)
	if err != nil || string(buf[:n]) != "echo before" {
		t.Fatalf("answer %q, %v; want %q", buf[:n], err, "echo before")
	}
}

// TestFailures: a new process that exits, hangs or refuses is reported
// so, and the old process's socket still holds the waiting datagram.
func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		format string
		want   Result
		detail string
	}{
		{"exit", "", Exited, "exit status 3"},
		{"hang", "", Hung, "no prepared within"},
		{"hangready", "", Hung, "no ready within"},
		{"ready", "twserver-handover/99", Refused, "unknown state format"},
	} {
		t.Run(tc.mode+tc.format, func(t *testing.T) {
			if tc.format != "" {
				old := Format
				Format = tc.format // the state is written in a form the child does not read
				t.Cleanup(func() { Format = old })
			}
			c, srv, _ := startChild(t, tc.mode)
			timeout := ReadyTimeout
			if tc.want == Hung {
				timeout = 300 * time.Millisecond
			}
			start := time.Now()
			r, detail := c.Prepared(timeout)
			if r == Ready {
				if err := c.Hand(State{Games: []GameState{{Addr: srv.LocalAddr().String()}}}); err != nil {
					t.Fatal(err)
				}
				r, detail = c.Wait(timeout)
			}
			if r != tc.want || !strings.Contains(detail, tc.detail) {
				t.Fatalf("result %v (%s), want %v (%s)", r, detail, tc.want, tc.detail)
			}
			if tc.want == Hung && time.Since(start) > timeout+3*time.Second {
				t.Fatalf("Wait took %v", time.Since(start))
			}
			buf := make([]byte, 64)
			_ = srv.SetReadDeadline(time.Now().Add(2 * time.Second))
			n, _, err := srv.ReadFrom(buf)
			if err != nil || string(buf[:n]) != "before" {
				t.Fatalf("old socket read %q, %v; want the waiting datagram", buf[:n], err)
			}
		})
	}
}

func TestDecodeBounds(t *testing.T) {
	var b bytes.Buffer
	if err := Encode(&b, State{Games: []GameState{{Addr: "0.0.0.0:8303", Slots: []byte(`[{"ID":3}]`)}}}); err != nil {
		t.Fatal(err)
	}
	s, err := Decode(bytes.NewReader(b.Bytes()))
	if err != nil || s.Games[0].Addr != "0.0.0.0:8303" || string(s.Games[0].Slots) != `[{"ID":3}]` {
		t.Fatalf("round trip: %+v, %v", s, err)
	}
	if _, err := Decode(strings.NewReader("twserver-handover/0\n{}")); !errors.Is(err, ErrFormat) {
		t.Fatalf("other format: %v", err)
	}
	big := io.MultiReader(strings.NewReader(Format+"\n"), io.LimitReader(spaces{}, MaxState), strings.NewReader("{}"))
	if _, err := Decode(big); err == nil {
		t.Fatal("a state beyond MaxState was read")
	}
	if _, err := Decode(strings.NewReader(Format + "\n{\"games\":")); err == nil {
		t.Fatal("a cut state was read")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(Format + "\n{\"games\":[{\"addr\":\"x\"}]}"))
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = Decode(bytes.NewReader(b)) })
}

// TestNotifyMainPID: the MAINPID line reaches the NOTIFY_SOCKET.
func TestNotifyMainPID(t *testing.T) {
	if err := NotifyMainPID(1); err != nil { // no socket: nothing to do
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "notify")
	ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv("NOTIFY_SOCKET", path)
	if err := NotifyMainPID(4242); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	_ = ln.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, err := ln.Read(buf)
	if err != nil || string(buf[:n]) != "MAINPID=4242\n" {
		t.Fatalf("got %q, %v", buf[:n], err)
	}
}

func TestInheritedBadEnv(t *testing.T) {
	for _, v := range []string{"v9;state=3;status=4", "v1;state=x;status=4", "v1;status=4", "v1;state=1;status=4"} {
		t.Setenv(EnvVar, v)
		if in, err := Inherited(); err == nil {
			t.Errorf("%q: accepted %+v", v, in)
		}
	}
	os.Unsetenv(EnvVar)
	if in, err := Inherited(); in != nil || err != nil {
		t.Fatalf("plain start: %v, %v", in, err)
	}
}

// spaces reads as endless blanks.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

package nodns_test

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"twserver/internal/nodns"
	"twserver/internal/refserver"
	"twserver/internal/testenv"
	"twserver/internal/testport"
)

// sockAddr matches an IPv4 or IPv6 address and port in strace's rendering
// of a connect/sendto/sendmsg/sendmmsg destination.
var sockAddr = regexp.MustCompile(`sin6?_port=htons\((\d+)\).*?(?:inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")`)

// destinations returns the IP destinations (address and port) of the
// socket calls in an strace log.
func destinations(trace string) []netip.AddrPort {
	var out []netip.AddrPort
	for _, line := range strings.Split(trace, "\n") {
		if !regexp.MustCompile(`\b(connect|sendto|sendmsg|sendmmsg)\(`).MatchString(line) {
			continue
		}
		for _, m := range sockAddr.FindAllStringSubmatch(line, -1) {
			a := m[2] + m[3]
			ip, err := netip.ParseAddr(a)
			if err != nil {
				continue
			}
			var port uint16
			for _, c := range m[1] {
				port = port*10 + uint16(c-'0')
			}
			out = append(out, netip.AddrPortFrom(ip.Unmap(), port))
		}
	}
	return out
}

func TestDestinationsParse(t *testing.T) {
	trace := `9418  connect(4, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = -1 ENETUNREACH (Network is unreachable)
9418  sendto(5, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(8303), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr), sin6_scope_id=0}, 28) = 1
9418  connect(4, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT
9418  openat(AT_FDCWD, "/etc/hosts", O_RDONLY|O_CLOEXEC) = 4`
	got := destinations(trace)
	want := []netip.AddrPort{netip.MustParseAddrPort("10.255.255.53:53"), netip.MustParseAddrPort("127.0.0.1:8303")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("destinations %v, want %v", got, want)
	}
}

// server is a reference server under test: its binary, command-line
// settings for a loopback port, and the text it prints once started.
type server struct {
	name, pkg, bin, ready string
	args                  func(port int) []string
}

func servers() []server {
	return []server{
		{"teeworlds-server", "teeworlds-server", refserver.Path(), refserver.Ready, func(port int) []string {
			return refserver.Args(refserver.Settings{Port: port, Name: "nodns", LogLevel: 1, PerIP: 4, PlayerSlots: 8})
		}},
		{"DDNet-Server", "ddnet-server", refserver.DDNetPath, "rcon password", func(port int) []string {
			return refserver.DDNetArgs(port)
		}},
	}
}

// traceRun runs argv under strace (connect, sendto, sendmsg, sendmmsg and
// openat, following every process and thread) in dir until the output
// holds ready and the trace holds traced (or 10 s), then 500 ms more, and
// returns the trace and the output.
func traceRun(t *testing.T, dir string, argv []string, ready string, traced *regexp.Regexp) (string, string) {
	t.Helper()
	tr := filepath.Join(dir, "strace.log")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "strace", append([]string{"-f", "-o", tr, "-e", "trace=connect,sendto,sendmsg,sendmmsg,openat", "--"}, argv...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var out refserver.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(tr)
		if strings.Contains(out.String(), ready) && traced.Match(b) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("no %q in the output or no %v in the trace within 10 s", ready, traced)
			break
		}
		select {
		case err := <-done:
			t.Fatalf("%v exited early (%v):\n%s", argv, err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	time.Sleep(500 * time.Millisecond)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // strace, the server and its threads
	<-done
	b, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), out.String()
}

// TestReferenceServersLookUpOnlyLoopback: started through the confinement
// (nodns.Wrap) in the test's own network namespace, teeworlds-server 0.7.5
// and DDNet-Server 16.4 send nothing to any address but loopback and ask no
// DNS server anything (no socket call to port 53), while the trace shows
// they did look names up (they read the confined nsswitch.conf and
// /etc/hosts). Positive control: the same server run without the
// confinement, in an empty private network namespace (so nothing can
// leave), sends its look-up to the host's resolver on port 53, and the
// same trace reading sees it.
func TestReferenceServersLookUpOnlyLoopback(t *testing.T) {
	testenv.LookPath(t, "strace", "strace")
	testenv.LookPath(t, "unshare", "util-linux")
	testenv.Require(t, "a private mount namespace for the confinement (unshare --mount, root or user namespaces)", nodns.Check())
	for _, s := range servers() {
		t.Run(s.name, func(t *testing.T) {
			if s.bin == "" {
				refserver.Require(t)
			}
			testenv.Stat(t, s.bin, s.pkg)
			argv := append([]string{s.bin}, s.args(testport.Pick(t))...)

			trace, out := traceRun(t, t.TempDir(), nodns.Wrap(argv...), s.ready, regexp.MustCompile(`"/etc/hosts"`))
			looked := strings.Contains(trace, `"/etc/nsswitch.conf"`) && strings.Contains(trace, `"/etc/hosts"`)
			if !looked {
				t.Errorf("confined: the trace shows no look-up (no nsswitch.conf and hosts read):\n%s", trace)
			}
			loop := 0
			for _, d := range destinations(trace) {
				if !d.Addr().IsLoopback() {
					t.Errorf("confined: a socket call to %v, not loopback", d)
				} else {
					loop++
				}
				if d.Port() == 53 {
					t.Errorf("confined: a DNS query to %v", d)
				}
			}
			t.Logf("confined: %d socket calls to loopback, none elsewhere; output tail:\n%s", loop, tail(out))

			// Control: unconfined, in an empty network namespace.
			if err := exec.Command("unshare", "--net", "--", "true").Run(); err != nil {
				testenv.Require(t, "a private network namespace for the control run (unshare --net, as root)", err)
			}
			dns := regexp.MustCompile(`(connect|sendto|sendmsg|sendmmsg)\(.*htons\(53\)`)
			trace, _ = traceRun(t, t.TempDir(), append([]string{"unshare", "--net", "--"}, argv...), s.ready, dns)
			var queries []netip.AddrPort
			for _, d := range destinations(trace) {
				if d.Port() == 53 {
					queries = append(queries, d)
				}
			}
			if len(queries) == 0 {
				t.Errorf("control: unconfined, the server sent no DNS query; the check above proves nothing:\n%s", trace)
			}
			t.Logf("control: unconfined (in an empty network namespace) it asked %v", queries)
		})
	}
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, "\n")
}

package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/internal/nodns"
	"twserver/internal/refserver"
	"twserver/internal/testport"
	"twserver/loadclient"
	"twserver/sockio"
)

// refConsoleCommands are run on both servers, in order, with two clients
// in game (ids 0 and 1, from 127.0.0.2 and 127.0.0.3). They avoid what
// differs on purpose (the unsupported commands, exec's path message, the
// settings twserver refuses at run time, a password's value).
var refConsoleCommands = []string{
	"status",
	"echo hello  world",
	`echo "quoted; kept"; echo second`,
	"nosuch 1",
	"kick",
	"kick 9",
	"ban 127.0.0.9 10 test",
	"ban 127.0.0.9 20 again",
	"ban 127.0.0.8",
	"ban 127.0.0.7 0 life",
	"ban 127.0.0.1",
	"ban 40",
	"ban not.an.ip",
	"bans",
	"unban 1",
	"unban 127.0.0.9",
	"unban 127.0.0.9",
	"unban 9",
	"bans",
	"unban_all",
	"bans",
	"tune gravity 0.25",
	"tune gravity 0.5",
	"tune nosuch 1",
	"tune_reset",
	"tunes",
	`add_vote "Say hi" say hi`,
	`add_vote "say HI" echo x`,
	"add_vote x nosuchcommand",
	`add_vote Two "echo a; echo b"`,
	"remove_vote nosuch",
	"remove_vote two",
	"clear_votes",
	"vote yes",
	"set_team 1 -1",
	"set_team 1 0",
	"set_team_all 0",
	"exec missing.cfg",
	"echo",
	"set_team 7 0",
	"vote no",
	"sv_vote_kick",
	"sv_vote_kick 0; sv_vote_kick",
	"sv_vote_kick_min 99; sv_vote_kick_min",
	"sv_rcon_bantime -3; sv_rcon_bantime",
	"sv_vote_spectate_rejoindelay",
	"sv_name",
	`sv_name "  A   new  name "; sv_name`,
	"sv_scorelimit",
	"sv_scorelimit 5",
	"sv_scorelimit",
	"sv_scorelimit 5000; sv_scorelimit",
	`sv_scorelimit "7`,
	"sv_timelimit x7; sv_timelimit",
	"password",
	`password x; password ""; password`, // (a set one prints "(set)", the reference its value)
	`sv_motd "Hello; world"; sv_motd`,
	"sv_player_slots 99; sv_player_slots",
	"sv_gametype ctf; sv_gametype",
	"sv_warmup 5; sv_warmup",
	"sv_high_bandwidth 1; sv_high_bandwidth",
	"sv_spamprotection; sv_inactivekick_time",
	"toggle sv_vote_kick 0 1; sv_vote_kick",
	"toggle sv_name 0 1",
	"toggle nosuch 0 1",
	`add_vote "Kick" kick 1 "a reason"`,
	`say "quoted # not a comment"; echo after # a comment`,
	"ban 1 5 bye",
	"status",
}

// refEventLine matches the reference's event lines (joins, drops, kills...)
// that are not command output.
var refEventLine = regexp.MustCompile(`^\[[^\]]*\]\[(game|chat|teamchat|econ)\]|player (is ready|has entered the game)|client dropped|ClientID=\d+ |cid=\d+ cmd=`)

// addrPort hides client ports (they differ from run to run).
var addrPort = regexp.MustCompile(`(addr=[0-9.]+):\d+`)

// TestConsoleAgainstReference runs refConsoleCommands on the real 0.7.5
// server (through its econ) and on twserver (through its console) with
// the same two clients, and requires the same output lines.
func TestConsoleAgainstReference(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the run against the reference server")
	}
	bin := refserver.Require(t)
	ref := refConsoleRun(t, func(ctx context.Context) (netip.AddrPort, func(int, string) []string) {
		return startRefEcon(t, ctx, bin)
	})
	tw := refConsoleRun(t, func(ctx context.Context) (netip.AddrPort, func(int, string) []string) {
		return startTwConsole(t, ctx)
	})
	for i, cmd := range refConsoleCommands {
		if !slices.Equal(ref[i], tw[i]) {
			t.Errorf("%s:\nreference %q\ntwserver  %q", cmd, ref[i], tw[i])
		}
	}
}

// refConsoleRun starts a server with start, joins two idle clients, runs
// the commands and returns each command's output lines.
func refConsoleRun(t *testing.T, start func(context.Context) (netip.AddrPort, func(int, string) []string)) [][]string {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, run := start(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	clients := make([]*loadclient.Client, 2)
	for i := range clients {
		clients[i] = loadclient.New(loadclient.Config{Server: addr, Source: netip.AddrFrom4([4]byte{127, 0, 0, byte(2 + i)}),
			Name: fmt.Sprintf("client%d", i), Pattern: loadclient.PatternIdle, Seed: uint64(i)})
		wg.Add(1)
		go func() { defer wg.Done(); clients[i].Run(ctx) }()
		for deadline := time.Now().Add(10 * time.Second); !clients[i].Entered(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("client %d not in game on %s", i, addr)
			}
		}
	}
	run(-1, "") // drain the join lines
	out := make([][]string, len(refConsoleCommands))
	for i, cmd := range refConsoleCommands {
		out[i] = run(i, cmd)
	}
	return out
}

// quietLines collects lines from ch until none came for 300 ms.
func quietLines(ch <-chan string) []string {
	var out []string
	for {
		select {
		case l := <-ch:
			out = append(out, l)
		case <-time.After(300 * time.Millisecond):
			return out
		}
	}
}

// markedLines collects lines from ch up to the line mark (which it drops),
// or until 10 s passed. keep turns a raw line into an output line ("" to
// drop it).
func markedLines(t *testing.T, ch <-chan string, mark string, keep func(string) string) []string {
	var out []string
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l := <-ch:
			l = keep(l)
			if l == mark {
				return out
			}
			if l != "" {
				out = append(out, l)
			}
		case <-timeout:
			t.Errorf("no end mark %q after %q", mark, out)
			return out
		}
	}
}

// endMark is the echo that ends the output of command n.
func endMark(n int) string { return fmt.Sprintf("@@end of %d@@", n) }

// startRefEcon runs the reference server with an econ on loopback and
// returns its address and a function that runs command n through the
// econ, followed by the echo of its end mark, and returns the command's
// output lines without time and system (n -1: the lines so far).
func startRefEcon(t *testing.T, ctx context.Context, bin string) (netip.AddrPort, func(int, string) []string) {
	port, ecPort := refserver.FreeUDPPort(t), freeTCPPort(t)
	dir := t.TempDir()
	args := append(refserver.Args(refserver.Settings{Port: port, Name: "console-ref", LogLevel: 0, PerIP: 4, PlayerSlots: 8}),
		"ec_bindaddr 127.0.0.1", fmt.Sprintf("ec_port %d", ecPort), "ec_password pw", "ec_output_level 0")
	cmd := nodns.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var log refserver.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var conn net.Conn
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if strings.Contains(log.String(), refserver.Ready) {
			if conn, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", ecPort)); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("reference server or its econ did not start (%v):\n%s", err, log.String())
		}
	}
	t.Cleanup(func() { conn.Close() })
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(conn)
		for sc.Scan() {
			if l := strings.Trim(sc.Text(), "\x00\r"); l != "" {
				lines <- l
			}
		}
	}()
	if _, err := io.WriteString(conn, "pw\n"); err != nil {
		t.Fatal(err)
	}
	if got := quietLines(lines); !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "Authentication successful") }) {
		t.Fatalf("econ login: %q", got)
	}
	prefix := regexp.MustCompile(`^\[\d\d:\d\d:\d\d\]\[[^\]]*\]: `)
	keep := func(l string) string {
		if refEventLine.MatchString(l) {
			return ""
		}
		return addrPort.ReplaceAllString(prefix.ReplaceAllString(l, ""), "$1:*")
	}
	return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port)), func(n int, c string) []string {
		if n < 0 {
			quietLines(lines)
			return nil
		}
		if _, err := io.WriteString(conn, c+"\necho "+endMark(n)+"\n"); err != nil {
			t.Fatal(err)
		}
		return markedLines(t, lines, endMark(n), keep)
	}
}

// startTwConsole runs twserver on a loopback UDP port and returns its
// address and a function that runs command n on its console, followed by
// the echo of its end mark, and returns the output lines (the log lines
// that carry only a message).
func startTwConsole(t *testing.T, ctx context.Context) (netip.AddrPort, func(int, string) []string) {
	t.Chdir(t.TempDir())
	cfg := config.Default()
	cfg.Server.Bind, cfg.Server.Port = "127.0.0.1", refserver.FreeUDPPort(t)
	// as refserver.Args and startRefEcon set the reference
	cfg.Server.Name, cfg.Server.MaxClients, cfg.Server.PlayerSlots = "console-ref", 64, 8
	cfg.Game.SpamProtection, cfg.Game.InactiveKickTime = false, 0
	pc, _, err := sockio.ListenUDP(fmt.Sprintf("127.0.0.1:%d", cfg.Server.Port))
	if err != nil {
		t.Fatal(err)
	}
	logR, logW := io.Pipe()
	consR, consW := io.Pipe()
	s, err := New(Options{Config: cfg, Conn: pc, Logger: zerolog.New(logW), Console: consR, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	t.Cleanup(func() { consW.Close(); <-done; logW.Close() })
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(logR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && len(m) == 2 && m["level"] == "info" {
				if msg, ok := m["message"].(string); ok {
					lines <- msg
				}
			}
		}
	}()
	return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(cfg.Server.Port)), func(n int, c string) []string {
		if n < 0 {
			quietLines(lines)
			return nil
		}
		if _, err := io.WriteString(consW, c+"\necho "+endMark(n)+"\n"); err != nil {
			t.Fatal(err)
		}
		return markedLines(t, lines, endMark(n), func(l string) string { return addrPort.ReplaceAllString(l, "$1:*") })
	}
}

func freeTCPPort(t *testing.T) int {
	t.Helper()
	return testport.Pick(t)
}

package console

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"twserver/config"
)

// testHost is a Host that keeps what the console hands it.
type testHost struct {
	cfg      config.Config
	out      []string // "CID:line"
	recorded []string // "CID:name args"
	set      []string // "name=val"
	shutdown bool
}

func (h *testHost) Output(c Caller, line string) {
	h.out = append(h.out, string(rune('0'+c.Kind))+":"+line)
}
func (h *testHost) Config() *config.Config { return &h.cfg }
func (h *testHost) SetSetting(name, val, _ string, next config.Config) {
	h.set = append(h.set, name+"="+val)
	h.cfg = next
}
func (h *testHost) Record(c Caller, name string, args []string) {
	h.recorded = append(h.recorded, strings.Join(append([]string{name}, args...), " "))
}
func (h *testHost) MapName() string { return "dm1" }
func (h *testHost) Shutdown()       { h.shutdown = true }

// gameHandlers returns a handler for every command the console does not
// run itself; each prints its name, caller id and arguments.
func gameHandlers(cn **Console) map[string]Handler {
	hs := map[string]Handler{}
	for _, c := range Commands() {
		if slices.Contains(builtin[:], c.Name) {
			continue
		}
		hs[c.Name] = func(by Caller, a Args) error {
			(*cn).Print(c.Name + " by " + string(rune('0'+by.Kind)) + " " + strings.Join(a, "|"))
			return nil
		}
	}
	return hs
}

func newTestConsole(t *testing.T) (*Console, *testHost) {
	t.Helper()
	h := &testHost{cfg: config.Default()}
	var cn *Console
	cn, err := New(h, gameHandlers(&cn))
	if err != nil {
		t.Fatal(err)
	}
	return cn, h
}

// TestNewChecksHandlers: a command without a handler, a handler of no
// command (or of an alias, or of a command the console runs itself) and a
// nil handler are refused; the full table is taken.
func TestNewChecksHandlers(t *testing.T) {
	var cn *Console
	for name, change := range map[string]func(map[string]Handler){
		"missing kick": func(m map[string]Handler) { delete(m, "kick") },
		"nil kick":     func(m map[string]Handler) { m["kick"] = nil },
		"unknown":      func(m map[string]Handler) { m["no_such_command"] = m["kick"] },
		"alias":        func(m map[string]Handler) { m["sv_map"] = m["kick"] },
		"builtin":      func(m map[string]Handler) { m["echo"] = m["kick"] },
	} {
		hs := gameHandlers(&cn)
		change(hs)
		if _, err := New(&testHost{}, hs); err == nil {
			t.Errorf("%s: New took it", name)
		}
	}
	if _, err := New(&testHost{}, gameHandlers(&cn)); err != nil {
		t.Fatal(err)
	}
	if len(builtin)+len(gameHandlers(&cn)) != len(commands) {
		t.Fatalf("%d built-in and %d game handlers for %d commands", len(builtin), len(gameHandlers(&cn)), len(commands))
	}
}

// TestRunCaller: a line runs for its caller, its output goes to the host
// with that caller, and Collect returns it, nested lines included.
func TestRunCaller(t *testing.T) {
	cn, h := newTestConsole(t)
	if err := cn.Run(RconCaller(3), `kick 1 "bad aim"; echo hi # echo no`); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1:kick by 1 1|bad aim", "1:hi"}; !slices.Equal(h.out, want) {
		t.Errorf("output %q, want %q", h.out, want)
	}
	if want := []string{"kick 1 bad aim", "echo hi"}; !slices.Equal(h.recorded, want) {
		t.Errorf("recorded %q, want %q", h.recorded, want)
	}
	h.out = nil
	cn.table["status"] = func(Caller, Args) error { return cn.Run(Caller{Kind: Vote}, "say voted") }
	got, err := cn.Collect(Caller{Kind: Admin}, "echo a; status; no_such; kick")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "say by 3 voted", "No such command: no_such.", "Invalid arguments... Usage: kick i[id] ?r[reason]"}
	if !slices.Equal(got, want) {
		t.Errorf("collected %q, want %q", got, want)
	}
	if want := []string{"4:a", "3:say by 3 voted", "4:No such command: no_such.", "4:Invalid arguments... Usage: kick i[id] ?r[reason]"}; !slices.Equal(h.out, want) {
		t.Errorf("output %q, want %q", h.out, want)
	}
	h.out = nil
	cn.Print("outside")
	if len(h.out) != 1 || h.out[0] != "0:outside" {
		t.Errorf("output outside a line %q, want it for stdin", h.out)
	}
}

// TestExec: a command by name runs for its caller with its arguments as
// given (no parsing: a space stays inside an argument), recorded as Run
// records it; an unknown name is an error and runs nothing.
func TestExec(t *testing.T) {
	cn, h := newTestConsole(t)
	if err := cn.Exec(Caller{Kind: Vote}, "ban", "10.0.0.2", "5", "Banned by vote"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"3:ban by 3 10.0.0.2|5|Banned by vote"}; !slices.Equal(h.out, want) {
		t.Errorf("output %q, want %q", h.out, want)
	}
	if want := []string{"ban 10.0.0.2 5 Banned by vote"}; !slices.Equal(h.recorded, want) {
		t.Errorf("recorded %q, want %q", h.recorded, want)
	}
	h.out, h.recorded = nil, nil
	if err := cn.Exec(Caller{}, "no_such", "1"); err == nil || len(h.out) != 0 || len(h.recorded) != 0 {
		t.Errorf("unknown command: err %v, output %q, recorded %q", err, h.out, h.recorded)
	}
	cn.table["kick"] = func(Caller, Args) error { return ErrShutdown }
	if err := cn.Exec(Caller{}, "kick", "1"); !errors.Is(err, ErrShutdown) {
		t.Errorf("err %v, want ErrShutdown", err)
	}
}

func TestCallerCID(t *testing.T) {
	for c, want := range map[Caller]int{{}: CIDConsole, RconCaller(7): 7, {Kind: Side}: CIDConsole, {Kind: Vote}: CIDVote, {Kind: Admin}: CIDConsole} {
		if got := c.CID(); got != want {
			t.Errorf("%+v.CID() = %d, want %d", c, got, want)
		}
	}
}

// TestShutdown: shutdown stops the line; inside a file run by exec it asks
// the host and the line goes on.
func TestShutdown(t *testing.T) {
	cn, h := newTestConsole(t)
	if err := cn.Run(Caller{}, "echo a; shutdown; echo b"); !errors.Is(err, ErrShutdown) {
		t.Fatalf("err %v, want ErrShutdown", err)
	}
	if len(h.out) != 1 {
		t.Errorf("output %q, want only a", h.out)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "stop.cfg"), []byte("echo one\nshutdown\necho two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.out = nil
	if err := cn.Run(Caller{}, "exec stop.cfg; echo after"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"0:executing 'stop.cfg'", "0:one", "0:after"}; !h.shutdown || !slices.Equal(h.out, want) {
		t.Errorf("shutdown %v, output %q, want true, %q", h.shutdown, h.out, want)
	}
}

// TestSettings: a setting prints its value, changes through the host with
// the recorded command (never a password's value) and refuses a
// process-bound change.
func TestSettings(t *testing.T) {
	cn, h := newTestConsole(t)
	_ = cn.Run(Caller{}, "sv_scorelimit 7; sv_scorelimit; sv_rcon_password secret; sv_port 1; sv_map; toggle sv_scorelimit 7 9")
	if want := []string{"sv_scorelimit=7", "sv_rcon_password=secret", "sv_scorelimit=9"}; !slices.Equal(h.set, want) {
		t.Errorf("set %q, want %q", h.set, want)
	}
	if want := []string{"sv_scorelimit 7", "toggle sv_scorelimit 7 9", "sv_scorelimit 9"}; !slices.Equal(h.recorded, want) {
		t.Errorf("recorded %q, want %q", h.recorded, want)
	}
	if len(h.out) != 3 || h.out[0] != "0:Value: 7" || !strings.Contains(h.out[1], "sv_port cannot change") || h.out[2] != "0:Value: dm1" {
		t.Errorf("output %q", h.out)
	}
}

// TestUpgradeCommand: the command upgrade calls the request OnUpgrade
// installed and prints its outcome; without one it says so.
func TestUpgradeCommand(t *testing.T) {
	cn, h := newTestConsole(t)
	defer OnUpgrade(nil)
	OnUpgrade(nil)
	cn.Run(Caller{}, "upgrade")
	calls := 0
	OnUpgrade(func() error {
		calls++
		if calls == 2 {
			return errors.New("an upgrade is under way")
		}
		return nil
	})
	cn.Run(Caller{}, "upgrade")
	cn.Run(Caller{}, "upgrade")
	out := strings.Join(h.out, "\n")
	for _, want := range []string{"upgrade: not available in this process", "upgrade: starting the new process", "upgrade refused: an upgrade is under way"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("output lacks one %q:\n%s", want, out)
		}
	}
	if calls != 2 {
		t.Errorf("the request was called %d times, want 2", calls)
	}
}

// TestPasswordValuesNotPrinted: asking a password setting for its value,
// or trying to change one that needs a restart, prints "(set)" instead of
// the value: console output goes to the log, the econ and every rcon
// client, not only to the admin who asked.
func TestPasswordValuesNotPrinted(t *testing.T) {
	cn, h := newTestConsole(t)
	h.cfg.Server.RconPassword, h.cfg.Server.Password, h.cfg.Econ.Password = "secret-rcon", "secret-game", "secret-econ"
	_ = cn.Run(Caller{}, "sv_rcon_password; password; ec_password; ec_password other; sv_scorelimit")
	for _, l := range h.out {
		if strings.Contains(l, "secret") {
			t.Errorf("output %q shows a password", l)
		}
	}
	// positive control: the lines were printed, the other value as it is
	want := []string{"0:Value: (set)", "0:Value: (set)", "0:Value: (set)", "0:Value: 20"}
	if got := slices.DeleteFunc(slices.Clone(h.out), func(l string) bool { return strings.Contains(l, "cannot change") }); !slices.Equal(got, want) ||
		len(h.out) != len(want)+1 {
		t.Errorf("output %q, want %q and the restart line", h.out, want)
	}
}

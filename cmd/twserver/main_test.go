package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"twserver/internal/testenv"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[server]\nprot = 1\n"), 0o644)
	badVal := filepath.Join(dir, "badval.toml")
	os.WriteFile(badVal, []byte("[game]\ntype = \"race\"\n"), 0o644)
	badCfg := filepath.Join(dir, "bad.cfg")
	os.WriteFile(badCfg, []byte("sv_name ok\nsv_port \"8303\n"), 0o644)
	// a map that cannot load is a configuration error (exit 2), not a
	// runtime error (before: "cannot start", exit 1, no key named)
	brokenMap := filepath.Join(dir, "broken.map")
	os.WriteFile(brokenMap, []byte("junk"), 0o644)
	rotation := filepath.Join(dir, "rotation.toml")
	os.WriteFile(rotation, []byte(fmt.Sprintf("[server]\nbind = \"127.0.0.1\"\nport = 0\n[map]\ndir = %q\nrotation = [\"none\"]\n", dir)), 0o644)
	loopback := []string{"-no-console", "-bind", "127.0.0.1", "-port", "0"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown key", []string{"-config", bad}, `line 2: unknown key "server.prot"`},
		{"invalid value", []string{"-config", badVal}, "game.type"},
		{"missing file", []string{"-config", filepath.Join(dir, "none.toml")}, "no such file"},
		{"bad flag value", []string{"-max-clients", "99"}, "server.max_clients"},
		{"bad player slots", []string{"-player-slots", "17"}, "server.player_slots"},
		{"stray argument", []string{"server.toml"}, "command line: server.toml: no such command in teeworlds-server 0.7.5; a file is given with -f FILE or -config FILE"},
		{"bad command", []string{"-no-console", "sv_port abc"}, `command line: sv_port abc: "abc" is not a number`},
		{"bad command value", []string{"sv_max_clients 4", "sv_gametype race"}, `command line: sv_gametype race: invalid value for game.type`},
		{"missing cfg", []string{"-f", filepath.Join(dir, "none.cfg")}, "no such file"},
		{"bad cfg", []string{"-f", badCfg}, badCfg + `:2: sv_port "8303: unterminated`},
		{"cfg given with -config", []string{"-config", badCfg}, badCfg + `:2: sv_port "8303: unterminated`},
		{"f and config", []string{"-f", badCfg, "-config", bad}, "-f and -config cannot be combined"},
		{"bad env", []string{"-no-console"}, `environment variable SV_MAX_CLIENTS_PER_IP: "many" is not a number`},
		{"missing map", append(loopback, "-map", filepath.Join(dir, "none.map")), "map.file: stat " + filepath.Join(dir, "none.map") + ": no such file"},
		{"broken map", append(loopback, "-map", brokenMap), "map.file: " + brokenMap + ": twmap"},
		{"missing rotation map", []string{"-no-console", "-config", rotation}, rotation + ": map.dir: stat " + filepath.Join(dir, "none.map")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "bad env" {
				t.Setenv("SV_MAX_CLIENTS_PER_IP", "many")
			}
			var errb lockedBuf
			if code := run(tt.args, strings.NewReader(""), &errb); code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if !strings.Contains(errb.String(), tt.want) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tt.want)
			}
		})
	}
}

// TestSignalShutdown starts the server on a free loopback port with a config
// file overridden by flags, then sends SIGINT, SIGTERM or SIGHUP: run must
// return 0 within 5 s, and the log must say which signal stopped it. (Before,
// SIGHUP, the signal of a closed terminal and of many operators' "reload",
// ended the process at once: no client told, the recordings cut short.)
func TestSignalShutdown(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(unix.SignalName(sig), func(t *testing.T) { signalShutdown(t, sig) })
	}
}

func signalShutdown(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "server.toml")
	os.WriteFile(cfg, []byte("[server]\nname = \"from file\"\nport = 8303\n[log]\nformat = \"json\"\n"), 0o644)
	var errb lockedBuf
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-config", cfg, "-bind", "127.0.0.1", "-port", "0", "-no-console"}, strings.NewReader(""), &errb)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(errb.String(), "listening") {
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(errb.String(), ":8303") {
		t.Errorf("-port did not override the file: %s", errb.String())
	}
	if !strings.Contains(errb.String(), `"socket":"`) {
		t.Errorf("the listening line does not name the socket: %s", errb.String())
	}
	t0 := time.Now()
	syscall.Kill(os.Getpid(), sig)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d\n%s", code, errb.String())
		}
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("shutdown took %v", d)
		}
	case <-time.After(6 * time.Second):
		t.Fatalf("no exit within 6 s after %v:\n%s", sig, errb.String())
	}
	if !strings.Contains(errb.String(), "server stopped") {
		t.Errorf("log lacks 'server stopped':\n%s", errb.String())
	}
	if want := `"signal":"` + unix.SignalName(sig) + `"`; !strings.Contains(errb.String(), want) {
		t.Errorf("log does not name the signal (%s):\n%s", want, errb.String())
	}
}

// TestDebianServerCfg starts twserver as Debian's unit starts
// teeworlds-server (-f /etc/teeworlds/server.cfg), with registration off
// and loopback, as commands after the file: it starts with the file's
// settings, warns about what it ignores (naming file and line) and stops on
// SIGINT.
func TestDebianServerCfg(t *testing.T) {
	const path = "/etc/teeworlds/server.cfg"
	testenv.Stat(t, path, "teeworlds-server")
	var errb lockedBuf
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-f", path, "sv_register 0", "bindaddr 127.0.0.1", "sv_port 0", "-no-console"}, strings.NewReader(""), &errb)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(errb.String(), "listening") {
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	log := errb.String()
	for _, want := range []string{
		`configuration gametype=dm max_clients=16 name="Teeworlds powered by Debian" player_slots=8 port=0 register=false warmup=10`,
		"command=sv_rcon_ban_time where=/etc/teeworlds/server.cfg:43",
		`command="sv_inactivekick 0" where=/etc/teeworlds/server.cfg:72`,
		"master registration is off", // "sv_register 0" after the file
		`WRN no such command in teeworlds-server 0.7.5 (a 0.6 setting`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} `).MatchString(log) {
		t.Errorf("log lines do not start with a full date and time:\n%s", log)
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d\n%s", code, errb.String())
		}
	case <-time.After(6 * time.Second):
		t.Fatalf("no exit within 6 s after SIGINT:\n%s", errb.String())
	}
}

// TestHelp: -h prints the usage (console commands as arguments, every
// flag) and exits 0: help asked for is no usage error. No flag shows a
// default that is not one (-port said "(default -1)", a value the port
// never has: unset, the port is server.port's).
func TestHelp(t *testing.T) {
	var errb lockedBuf
	if code := run([]string{"-h"}, strings.NewReader(""), &errb); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	for _, want := range []string{"usage: twserver [flags] [console command ...]", "-rcon-password string"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("usage %q does not contain %q", errb.String(), want)
		}
	}
	if m := regexp.MustCompile(`\(default -\d+\)`).FindString(errb.String()); m != "" {
		t.Errorf("usage shows %s:\n%s", m, errb.String())
	}
}

// TestConfigErrorFormat: a configuration that cannot be read is reported
// in the log format the flag or the environment asks for, so that a JSON
// log collector (docker logs, journald with a JSON pipeline) gets a JSON
// line, and as a plain line otherwise.
func TestConfigErrorFormat(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "server.cfg")
	toml := filepath.Join(dir, "game.toml")
	for _, p := range []string{ref, toml} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[server]\nno_such_key = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		env  string
		args []string
		json bool
		want string // in the error
	}{
		{"flag, bad key", "", []string{"-log-format", "json", "-config", bad}, true, "no_such_key"},
		{"environment, -f with -config", "json", []string{"-f", ref, "-config", toml}, true, "-f and -config cannot be combined"},
		{"flag over environment", "json", []string{"-log-format", "console", "-config", bad}, false, "no_such_key"},
		{"plain", "", []string{"-config", bad}, false, "no_such_key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TWSERVER_LOG_FORMAT", tt.env) // restored after the test
			if tt.env == "" {
				os.Unsetenv("TWSERVER_LOG_FORMAT")
			}
			var errb lockedBuf
			if code := run(append(tt.args, "-no-console"), strings.NewReader(""), &errb); code != 2 {
				t.Fatalf("exit code %d, want 2:\n%s", code, errb.String())
			}
			out := strings.TrimSpace(errb.String())
			if !tt.json {
				if !strings.HasPrefix(out, "twserver: ") || !strings.Contains(out, tt.want) || strings.Contains(out, "\n") {
					t.Errorf("got %q, want one line \"twserver: …%s…\"", out, tt.want)
				}
				return
			}
			var line struct{ Level, Error, Message, Time string }
			if err := json.Unmarshal([]byte(out), &line); err != nil {
				t.Fatalf("not one JSON line: %v\n%s", err, out)
			}
			if line.Level != "error" || line.Message != "configuration error: not started" || !strings.Contains(line.Error, tt.want) || line.Time == "" {
				t.Errorf("got %+v, want level error, the message, a time and an error with %q", line, tt.want)
			}
		})
	}
}

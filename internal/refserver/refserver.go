// Package refserver helps tests run the reference servers: for the 0.7.5
// one it finds the binary, picks a free loopback port, collects the
// process's output and builds the command line that keeps the server on
// loopback and never registers it with a master; DDNet-Server 16.4 it
// starts the same way (StartDDNet), inside a private network namespace
// that a test re-runs itself in (RunInner, Inner). It is test support only.
package refserver

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"

	"twserver/internal/testenv"
	"twserver/internal/testport"
)

// SkipReason is the message tests skip with when Path finds no binary.
const SkipReason = "teeworlds-server (0.7.5 reference server) not installed; apt-get install teeworlds-server"

// Require returns Path, or stops tb when there is none (testenv.Require:
// a skip, a failure under CI=true).
func Require(tb testing.TB) string {
	tb.Helper()
	p := Path()
	if p == "" {
		testenv.Require(tb, "the 0.7.5 reference server (Debian package teeworlds-server)", errors.New("not found ($TW07_SERVER, PATH, /usr/games)"))
	}
	return p
}

// Ready is the text the reference server prints once it is listening.
const Ready = "version 0.7"

// Path returns the 0.7.5 reference server binary ($TW07_SERVER, then
// teeworlds-server on PATH, then /usr/games/teeworlds-server), or "".
func Path() string {
	if p := os.Getenv("TW07_SERVER"); p != "" {
		return p
	}
	if p, err := exec.LookPath("teeworlds-server"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/games/teeworlds-server"); err == nil {
		return "/usr/games/teeworlds-server"
	}
	return ""
}

// FreeUDPPort returns a port on 127.0.0.1 that was free a moment ago for UDP
// (and TCP), outside the ephemeral range (see internal/testport).
func FreeUDPPort(tb testing.TB) int {
	tb.Helper()
	return testport.Pick(tb)
}

// Buffer collects a child process's output; it is safe for the process's
// writer and the test to use at once.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Settings are the reference server settings a test chooses.
type Settings struct {
	Port        int    // UDP port on 127.0.0.1
	Name        string // sv_name
	LogLevel    int    // console_output_level
	PerIP       int    // sv_max_clients_per_ip
	PlayerSlots int    // sv_player_slots
}

// Args returns the command-line settings for a 64-client server on dm1 bound
// to 127.0.0.1, not registering with a master, with spam protection and
// inactivity kicks off.
func Args(s Settings) []string {
	return []string{
		"bindaddr 127.0.0.1", fmt.Sprintf("sv_port %d", s.Port), "sv_register 0", "sv_map dm1",
		"sv_name " + s.Name, fmt.Sprintf("console_output_level %d", s.LogLevel), "sv_max_clients 64",
		fmt.Sprintf("sv_max_clients_per_ip %d", s.PerIP), fmt.Sprintf("sv_player_slots %d", s.PlayerSlots),
		"sv_spamprotection 0", "sv_inactivekick_time 0",
	}
}

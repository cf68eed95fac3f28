package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"twserver/internal/netns"
	"twserver/internal/testenv"
)

// debianCfg is the configuration Debian's teeworlds-server package installs
// and its systemd unit starts the reference server with.
const debianCfg = "/etc/teeworlds/server.cfg"

// TestRealClientDebianCfg: the real 0.7.5 client joins a twserver started as
// Debian's unit starts teeworlds-server, -f /etc/teeworlds/server.cfg (in a
// private network namespace; the file says sv_register 1, so registration
// is also switched off after it, and the server binds to loopback).
func TestRealClientDebianCfg(t *testing.T) {
	realClientTest(t, func() { testenv.Stat(t, debianCfg, "teeworlds-server") }, innerDebianCfg)
}

func innerDebianCfg(t *testing.T) {
	netns.RequireLoopbackOnly(t)
	out, bin := os.Getenv(outEnv), os.Getenv(binEnv)
	serverLog := filepath.Join(out, "server.log")
	srv := start(t, "twserver", serverLog, nil, nil, out, bin,
		"-f", debianCfg, "sv_register 0", "bindaddr 127.0.0.1", "sv_port "+e2ePort, "-no-console")
	if !waitLog(serverLog, regexp.MustCompile(`listening`), 10*time.Second) {
		b, _ := os.ReadFile(serverLog)
		t.Fatalf("twserver did not start:\n%s", b)
	}
	// The file's settings are the ones in effect.
	if !waitLog(serverLog, regexp.MustCompile(`configuration gametype=dm max_clients=16 name="Teeworlds powered by Debian" player_slots=8 port=`+e2ePort+` register=false warmup=10`), time.Second) {
		b, _ := os.ReadFile(serverLog)
		t.Errorf("server log lacks the file's configuration:\n%s", b)
	}

	client, clientLog, _ := startRealClient(t, out, "127.0.0.1:"+e2ePort, "bind f9 quit")
	if !waitLog(clientLog, regexp.MustCompile(`state change\. last=2 current=3`), 40*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("client never reached the online state; client exited=%v; client log tail:\n%s", client.exited(), tail(b, 40))
	}
	t.Logf("client online")
	if !waitLog(serverLog, regexp.MustCompile(`entered the game`), 5*time.Second) {
		t.Errorf("server did not log that the player entered the game")
	}
	// sv_warmup 10 from the file: the server is in warmup while the client plays.
	time.Sleep(2 * time.Second)
	quitClient(t, client, clientLog)
	if err := srv.stop(t); err != nil {
		t.Errorf("twserver exit: %v", err)
	}
	b, _ := os.ReadFile(serverLog)
	t.Logf("server log:\n%s", tail(b, 30))
}

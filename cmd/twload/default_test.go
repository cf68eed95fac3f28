package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"twserver/internal/refserver"
	"twserver/loadclient"
)

// defaultEnv marks the re-run of TestDefaultTwserver inside its private
// network namespace; defaultBinEnv carries the twserver binary built outside.
const (
	defaultEnv    = "TWLOAD_DEFAULT_INNER"
	defaultBinEnv = "TWLOAD_DEFAULT_TWSERVER"
)

// TestDefaultTwserver is what a new user does first: start twserver with
// no flags at all (port 8303, 16 slots of which 8 play, 4 clients per
// address) and run `twload -n 16` with no flags but the count. Every
// client must get in (twload spreads them over loopback addresses by
// itself; the 8 beyond the player slots spectate) and the summary table
// must say so. `twload -n 17` then finds the 16 slots full and its table
// names the limit that refused the last client and the setting that lifts
// it. It runs in a private network namespace, where the fixed port 8303 is
// free and nothing but lo exists.
func TestDefaultTwserver(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the default-server run")
	}
	if !refserver.Inner(t, defaultEnv) {
		t.Setenv(defaultBinEnv, buildTwserver(t))
		refserver.RunInner(t, defaultEnv)
		return
	}
	cmd := exec.Command(os.Getenv(defaultBinEnv))
	cmd.Dir = t.TempDir()
	startProcess(t, cmd, "server started")
	var out, errb bytes.Buffer
	code := run([]string{"-n", "16", "-duration", "4s", "-status", "off"}, &out, &errb)
	t.Logf("twload -n 16, stderr:\n%s", errb.String())
	if code != 0 {
		t.Fatalf("twload -n 16 exit %d", code)
	}
	var sum loadclient.Summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("summary is not JSON: %v", err)
	}
	if sum.Connected != 16 || sum.Sources != 16 {
		t.Fatalf("connected %d over %d source addresses, want 16 over 16", sum.Connected, sum.Sources)
	}
	if !strings.Contains(errb.String(), "in game                 16/16 (failed 0)") {
		t.Errorf("the summary table does not show 16/16 in game")
	}

	out.Reset()
	errb.Reset()
	code = run([]string{"-n", "17", "-duration", "2s", "-status", "off"}, &out, &errb)
	t.Logf("twload -n 17, stderr:\n%s", errb.String())
	if code != 1 {
		t.Fatalf("twload -n 17 against 16 slots: exit %d, want 1", code)
	}
	for _, want := range []string{"in game                 16/17 (failed 1)", "1 failed: closed by server: This server is full",
		"max clients", "twserver -max-clients", "server.max_clients"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("the summary table does not say %q", want)
		}
	}
}

// TestFailureHint: a run refused by the per-address limit names the limit
// and the flag that helps in its summary table.
func TestFailureHint(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	addr := startTwserver(t, 16, 2)
	var out, errb bytes.Buffer
	code := run([]string{"-addr", addr.String(), "-n", "3", "-sources", "1", "-duration", "1s", "-rampup", "300ms", "-status", "off"}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, errb.String())
	}
	for _, want := range []string{"1 failed: closed by server: Only 2 players with the same IP", "per-address limit", "-sources 3"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, errb.String())
		}
	}
}

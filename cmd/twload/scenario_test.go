package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// shortScenario has one phase of every kind, a few seconds each.
const shortScenario = `name = "short"
description = "every kind of phase, briefly"
seed = 5

[[phase]]
kind = "ramp"
clients = 4
duration = "1s"

[[phase]]
kind = "loss"
duration = "2s"
loss = "10%"
delay = "30ms"

[[phase]]
kind = "blackout"
duration = "1500ms"

[[phase]]
kind = "flood"
duration = "1500ms"
rate = 3000
sources = 20

[[phase]]
kind = "hold"
duration = "2s"
connections = 8
stage = "connect"
keepalive = true

[[phase]]
kind = "leave"
clients = 2
duration = "1500ms"
`

// TestScenarioTwserver runs a short real scenario against a twserver
// process: every phase happens (datagrams blacked out, a flood sent,
// connections held, two clients gone), the clients that stay come through
// clean, the JSON has every phase's figures, and the report draws the
// phases as bands.
func TestScenarioTwserver(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the scenario run against twserver")
	}
	addr, pid := startTwserverProcess(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "short.toml")
	if err := os.WriteFile(file, []byte(shortScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"-addr", addr, "-scenario", file, "-status", "off", "-o", dir, "-pid", strconv.Itoa(pid)}, &out, &errb)
	t.Logf("stderr:\n%s", errb.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var rep scenarioReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("summary is not JSON: %v", err)
	}
	if rep.Scenario != "short" || len(rep.Phases) != 6 || rep.TotalS != 9.5 {
		t.Fatalf("scenario %q, %d phases, %v s", rep.Scenario, len(rep.Phases), rep.TotalS)
	}
	l := rep.Load
	if !l.OK() || l.Clients != 4 || l.Left != 2 || l.Injected.Up.Dropped == 0 || l.Injected.Up.Blackout == 0 || l.BlackoutRecovered != 4 {
		t.Errorf("load: ok %v, %d clients, %d left, up %+v, recovered %d", l.OK(), l.Clients, l.Left, l.Injected.Up, l.BlackoutRecovered)
	}
	ph := rep.Phases
	if ph[1].InGameEnd != 4 || ph[1].Netem == "" || ph[2].SnapsPerSecMin > 5 {
		t.Errorf("loss phase ends with %d in game, loss %q, blackout's lowest snapshot rate %v", ph[1].InGameEnd, ph[1].Netem, ph[2].SnapsPerSecMin)
	}
	if f := ph[3].Flood; f == nil || f.SentTotal < 1000 || f.Sources != 20 {
		t.Errorf("flood phase: %+v", f)
	}
	if h := ph[4].Hold; h == nil || h.Held == 0 || h.Clients != 8 {
		t.Errorf("hold phase: %+v", h)
	}
	if ph[5].Left != 2 || ph[5].InGameEnd != 2 || ph[5].SnapsPerSecMean < 20 {
		t.Errorf("leave phase: %d left, %d in game at the end, %v snapshots/s", ph[5].Left, ph[5].InGameEnd, ph[5].SnapsPerSecMean)
	}
	for _, want := range []string{"phase", "2 clients left", "flood: ", "hold at connect"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("the table does not say %q", want)
		}
	}
	r := readReport(t, dir)
	if len(r.Rows) != 1 || len(r.Rows[0].Phases) != 6 {
		t.Fatalf("report.json: %d rows", len(r.Rows))
	}
	if bands := checkReportInBrowser(t, filepath.Join(dir, "report.html"), 4); bands == 0 {
		t.Errorf("the report draws no phase bands")
	}
}

// TestScenarioUsage: a bad file names its line, and flags the scenario
// sets are refused beside it.
func TestScenarioUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[[phase]]\nkind = \"ramp\"\nclients = 2\nduration = \"1s\"\nrate = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", bad}, `bad.toml: line 5: phase 1 (ramp): unknown key "rate"`},
		{[]string{"-scenario", bad, "-n", "3", "-loss", "5%"}, "-loss, -n: the scenario file sets these"},
		{[]string{"-scenario", filepath.Join(dir, "none.toml")}, "no such file"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// TestBenchScenario: twload bench -scenario plays the scenario against a
// server it starts and reports every phase with the server's CPU and
// memory in it.
func TestBenchScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the bench scenario run")
	}
	tws := buildTwserver(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "b.toml")
	sc := "name = \"b\"\n[[phase]]\nkind = \"ramp\"\nclients = 3\nduration = \"1s\"\n[[phase]]\nkind = \"flood\"\nduration = \"2s\"\nrate = 5000\nsources = 20\n"
	if err := os.WriteFile(file, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"bench", "-server", tws + " {configs} -no-console -log-level warn", "-scenario", file, "-windows", "1", "-o", dir}, &out, &errb)
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rep := readReport(t, dir)
	if rep.Config.Scenario != file || len(rep.Rows) != 1 || len(rep.Rows[0].Phases) != 2 {
		t.Fatalf("report: scenario %q, %d rows", rep.Config.Scenario, len(rep.Rows))
	}
	f := rep.Rows[0].Phases[1]
	if f.Flood == nil || f.Flood.SentTotal == 0 || f.ServerCPUPct <= 0 || f.ServerRSSMB <= 0 {
		t.Errorf("flood phase: %+v", f)
	}
	if !strings.Contains(out.String(), "phases of "+file) {
		t.Errorf("stdout lacks the phase table")
	}
	var errb2 bytes.Buffer
	if code := run([]string{"bench", "-server", tws, "-scenario", file, "-clients", "4"}, &out, &errb2); code != 2 || !strings.Contains(errb2.String(), "-clients: not with -scenario") {
		t.Errorf("-clients with -scenario: exit %d, %q", code, errb2.String())
	}
}

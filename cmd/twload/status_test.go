package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHoldFloodStatus: `twload hold` and `twload flood` show the live
// status line with -status on and end with their short summary table on
// standard error (the JSON on standard output).
func TestHoldFloodStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the hold and flood runs against twserver")
	}
	addr := startTwserver(t, 16, 4).String()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"hold", "-addr", addr, "-n", "4", "-stage", "ready", "-rampup", "200ms", "-duration", "1500ms", "-status", "on"},
			[]string{"s left)  started 4  held 4", "twload hold: 4 connections stalling at ready (silent)", "reached the stage 4"}},
		{[]string{"flood", "-addr", addr, "-rate", "2000", "-duration", "1s", "-sources", "8", "-players", "1", "-baseline", "0s", "-status", "on"},
			[]string{"s left)  flood sent", "players in game 1/1", "twload flood: ", "players in game 1/1 (failed 0)"}},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		t.Logf("twload %s: exit %d, stderr:\n%s", tc.args[0], code, errb.String())
		if code != 0 || !bytes.HasPrefix(out.Bytes(), []byte("{")) {
			t.Errorf("twload %s: exit %d, stdout %.40q", tc.args[0], code, out.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("twload %s: stderr lacks %q", tc.args[0], w)
			}
		}
	}
}

package server

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"twserver/console"
)

// TestUpgradeCommandReplies: the console command upgrade calls the request
// OnUpgrade installed and prints its outcome; without one it says so.
func TestUpgradeCommandReplies(t *testing.T) {
	s := newIdleServer(t, 1)
	var buf bytes.Buffer
	s.log = zerolog.New(&buf)
	s.runConsole(console.Caller{}, "upgrade")
	calls := 0
	s.OnUpgrade(func() error {
		calls++
		if calls == 2 {
			return errors.New("an upgrade is under way")
		}
		return nil
	})
	s.runConsole(console.Caller{}, "upgrade")
	s.runConsole(console.Caller{}, "upgrade")
	out := buf.String()
	for _, want := range []string{"upgrade: not available in this process", "upgrade: starting the new process", "upgrade refused: an upgrade is under way"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("output lacks one %q:\n%s", want, out)
		}
	}
	if calls != 2 {
		t.Errorf("the request was called %d times, want 2", calls)
	}
}

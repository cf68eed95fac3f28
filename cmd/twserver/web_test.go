package main

import (
	"testing"

	"twserver/config"
	"twserver/web"
)

// TestRecordingsMode: every value web.recordings accepts maps to the
// page's mode of the same meaning (a value missing here would fall back
// to the zero mode silently).
func TestRecordingsMode(t *testing.T) {
	want := map[string]web.RecordingsMode{"off": web.RecordingsOff, "admin": web.RecordingsAdmin, "public": web.RecordingsPublic}
	for v, m := range want {
		c := config.Default()
		c.Web.Recordings, c.Web.PublicChat = v, true
		if err := c.Validate(); err != nil {
			t.Errorf("%q: %v", v, err)
		}
		if got, ok := recordingsMode[v]; !ok || got != m {
			t.Errorf("%q maps to %v (%v), want %v", v, got, ok, m)
		}
	}
	if len(recordingsMode) != len(want) {
		t.Errorf("%d modes mapped, want %d", len(recordingsMode), len(want))
	}
}

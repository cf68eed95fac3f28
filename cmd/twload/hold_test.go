package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"twserver/edge"
	"twserver/internal/heavytest"
	"twserver/loadclient"
)

// TestSlotHolding is the slot-holding proof (issue 11, proof 5): against a
// 64-slot twserver, 200 addresses complete the handshake and stall at each
// stage while keeping their connections alive; a new client from another
// address still gets in within 2 s, and every stalled connection is dropped
// within the documented bound of its stage (pregame.go) plus a tick.
func TestSlotHolding(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 3 x 15 s slot-holding runs")
	}
	heavytest.Lock(t)
	stages := []struct {
		stage loadclient.HoldStage
		bound time.Duration
	}{
		{loadclient.HoldConnect, edge.PregameInfoTimeout},
		{loadclient.HoldMap, edge.PregameStallTimeout},
		{loadclient.HoldReady, edge.PregameEnterTimeout},
	}
	for _, st := range stages {
		t.Run(st.stage.String(), func(t *testing.T) {
			addr := startTwserver(t, 64, 4)
			holdDone := make(chan loadclient.HoldSummary, 1)
			go func() {
				s, err := loadclient.RunHold(context.Background(), loadclient.HoldConfig{
					Server: addr, Clients: 200, Stage: st.stage, KeepAlive: true,
					RampUp: time.Second, Duration: st.bound + 4*time.Second,
				})
				if err != nil {
					t.Error(err)
				}
				holdDone <- s
			}()
			// the stalled connections are in place and idle for longer than PregameEvictIdle
			time.Sleep(time.Second + edge.PregameEvictIdle + 500*time.Millisecond)
			sum, err := loadclient.Run(context.Background(), loadclient.RunConfig{
				Server: addr, Clients: 1, Duration: time.Second, Pattern: loadclient.PatternIdle,
				EnterTimeout: 5 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Connected != 1 {
				t.Errorf("a new client did not get in while 200 connections stalled at %s: %v", st.stage, sum.Failures)
			} else if sum.ConnectMs.Max > 2000 {
				t.Errorf("a new client took %.0f ms to get in (bound 2000)", sum.ConnectMs.Max)
			}
			hs := <-holdDone
			t.Logf("stage %s: new client in game after %.0f ms; hold: held %d, never held %d, dropped %d (after %+v s), still held %d, reasons %v",
				st.stage, sum.ConnectMs.Max, hs.Held, hs.NeverHeld, hs.Dropped, hs.DroppedAfterS, hs.StillHeld, hs.Reasons)
			if hs.Held < 32 {
				t.Errorf("only %d connections reached stage %s (want at least the pre-game share, 32)", hs.Held, st.stage)
			}
			if hs.StillHeld != 0 {
				t.Errorf("%d stalled connections were never dropped", hs.StillHeld)
			}
			if slack := st.bound + 100*time.Millisecond; hs.DroppedAfterS.Max > slack.Seconds() {
				t.Errorf("a stalled connection was dropped %.2f s after stalling (bound %v)", hs.DroppedAfterS.Max, st.bound)
			}
			for reason := range hs.Reasons {
				switch reason {
				case edge.ReasonPregameStall, edge.ReasonEvicted, edge.ReasonPregameFull, "Timeout":
				default:
					if !strings.Contains(reason, "still connecting") {
						t.Errorf("unexpected drop reason %q", reason)
					}
				}
			}
		})
	}
}

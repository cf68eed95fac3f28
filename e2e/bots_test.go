package e2e

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"regexp"
	"testing"
	"time"

	"twserver/internal/servertest"
)

// playWithBots adds two bots to the real client's game over the server
// console (two more player places first: the test runs with one) and
// checks that the client learned of them, that the server's 0.7 info
// (what the client's browser reads) lists them with the bot type, and
// takes screenshots of the game and of the scoreboard with them (the 0.7.5
// client marks bots there). The bots leave again before the test goes on.
func playWithBots(t *testing.T, console io.Writer, serverLog, clientLog, out string) {
	t.Helper()
	mark, cmark := logSize(serverLog), logSize(clientLog)
	fmt.Fprintln(console, "sv_player_slots 3")
	fmt.Fprintln(console, "bot_add hard Ada")
	fmt.Fprintln(console, "bot_add easy Bert")
	for _, name := range []string{"Ada", "Bert"} {
		if !waitLogAfter(serverLog, mark, regexp.MustCompile(`bot has entered the game.*name=`+name), 5*time.Second) {
			t.Errorf("the server did not log bot %s entering", name)
		}
		// both clients print the join line: 0.7.5 its own, DDNet the
		// server's chat line (dialect6)
		if !waitLogAfter(clientLog, cmark, regexp.MustCompile(`'`+name+`' entered and joined`), 5*time.Second) {
			t.Errorf("the client's log does not show bot %s joining", name)
		}
	}
	players, rows := servertest.Info7(t, netip.MustParseAddrPort("127.0.0.1:"+e2ePort))
	t.Logf("0.7 info with bots: %d players, rows %+v", players, rows)
	if n := servertest.InfoBots(rows); n != 2 || players != 3 {
		t.Errorf("the 0.7 info shows %d bots among %d players, want 2 among 3", n, players)
	}
	time.Sleep(2 * time.Second) // the bots spawn and move
	screenshot(t, os.Getenv("DISPLAY"), out, "shot_bots.png")
	xdo(t, "keydown", "Tab")
	time.Sleep(400 * time.Millisecond)
	screenshot(t, os.Getenv("DISPLAY"), out, "shot_bots_scoreboard.png")
	xdo(t, "keyup", "Tab")
	// The client follows each bot as a spectator (spectate_next on F10),
	// so the bot and its marker are in the middle of the screen.
	if id, ok := playerID(t, console, serverLog); ok {
		fmt.Fprintf(console, "set_team %d -1\n", id)
		for i := range 2 {
			time.Sleep(1200 * time.Millisecond)
			xdo(t, "key", "F10")
			time.Sleep(800 * time.Millisecond)
			screenshot(t, os.Getenv("DISPLAY"), out, fmt.Sprintf("shot_bots_follow%d.png", i+1))
		}
		fmt.Fprintf(console, "set_team %d 0\n", id)
		time.Sleep(500 * time.Millisecond)
	}
	mark = logSize(serverLog)
	fmt.Fprintln(console, "bot_remove all")
	fmt.Fprintln(console, "sv_player_slots 1")
	if !waitLogAfter(serverLog, mark, regexp.MustCompile(`bot left the game`), 5*time.Second) {
		t.Errorf("the server did not log the bots leaving")
	}
}

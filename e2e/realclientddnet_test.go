package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"twserver/internal/testenv"
)

// ddnetClientBin is the DDNet 16.4 client (Debian package ddnet): it speaks
// only 0.6 with DDNet's extensions.
const ddnetClientBin = "/usr/games/DDNet"

// clientDDNet runs the DDNet 16.4 client. loglevel 4 makes it log the
// "state change" lines; no bindaddr (16.4 loops on a failing IPv6 bind
// with it); the OpenGL backend works under Xvfb.
var clientDDNet = realClient{
	bin: ddnetClientBin,
	args: []string{"gfx_fullscreen 0", "gfx_borderless 0", "gfx_screen_width 800", "gfx_screen_height 600",
		"gfx_vsync 0", "snd_enable 0", "debug 1", "gfx_refresh_rate 50", "loglevel 4", "gfx_backend OpenGL",
		"cl_auto_demo_record 0", "player_name e2ebot"},
	windowRe: "^DDNet",
	userDir:  ".local/share/ddnet",
	map06:    true,
}

// ddnetErrLineRe matches the error and warning lines of DDNet's log.
var ddnetErrLineRe = regexp.MustCompile(`(?m)^\S+ \S+ [EW] .*$`)

// TestRealClientDDNet is TestRealClient07 with the real DDNet 16.4 client:
// it connects over 0.6 with DDNet's security token, downloads the map,
// gets in game, chats, moves its tee in the server's world, and a
// synthetic 0.7 client in the same game sees its character where the
// server's world has it. Its log must hold no error or warning line.
func TestRealClientDDNet(t *testing.T) {
	realClientTest(t, func() { testenv.LookPath(t, ddnetClientBin, "ddnet") }, func(t *testing.T) {
		inner(t, clientDDNet)
		cl, _ := os.ReadFile(filepath.Join(os.Getenv(outEnv), "client.log"))
		if m := ddnetErrLineRe.FindAll(cl, -1); len(m) > 0 {
			t.Errorf("DDNet client logged %d error/warning lines, first: %s", len(m), m[0])
		}
		if !regexp.MustCompile(`chat: e2ebot: ` + regexp.QuoteMeta(chatText)).Match(cl) {
			t.Errorf("the client did not show its own chat line coming back from the server")
		}
	})
}

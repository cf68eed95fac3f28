package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/netns"
	"twserver/internal/testenv"
	"twserver/world/map06"
	"twserver/world/twmap"
)

// stockMapDir holds the stock Teeworlds 0.7.5 maps (Debian teeworlds-data).
const stockMapDir = "/usr/share/games/teeworlds/data/maps"

// stockMap06 is the stock map TestRealClientDDNetPrediction plays on.
const stockMap06 = "dm1"

// stockMaps06 are the stock maps the DDNet client must download and draw:
// their tile layers are stored as version 4 (run-length), which 0.6 clients
// cannot read, so the client only gets in game with each map's 0.6 variant.
var stockMaps06 = []string{"dm1", "ctf2"}

// TestRealClientDDNetStockMap serves each of the stock 0.7.5 maps
// stockMaps06 (version-4 tiles) to the real DDNet 16.4 client: it must
// download the map, get in game with no error or warning in its log, and the
// file it saved must be the map's 0.6 variant (world/map06) byte for byte. A
// screenshot of the client in game is kept (MAP/shot_MAP.png in the output
// directory) to be looked at; the test checks it is not one flat colour.
func TestRealClientDDNetStockMap(t *testing.T) {
	realClientTest(t, func() { needStock(t, filepath.Join(stockMapDir, stockMaps06[0]+".map")) }, func(t *testing.T) {
		for _, name := range stockMaps06 {
			t.Run(name, func(t *testing.T) { innerStockMap(t, name) })
		}
	})
}

// needStock is the outer half's check for a test of the DDNet client on
// the stock map at path: it stops with testenv (a skip, a failure under
// CI=true) when the client or the map is missing.
func needStock(t *testing.T, path string) {
	testenv.LookPath(t, ddnetClientBin, "ddnet")
	testenv.Stat(t, path, "teeworlds-data")
}

// stockVariant loads the stock map name from path, checks that it has
// version-4 tile layers and returns its 0.6 variant.
func stockVariant(t *testing.T, name, path string) *map06.Variant {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := twmap.Load(name, data)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	v4 := 0
	for _, l := range m.Layers {
		if l.Tiles != nil && l.Tiles.Version == 4 {
			v4++
		}
	}
	if v4 == 0 {
		t.Fatalf("%s has no version-4 tile layer; the test needs one", path)
	}
	v, err := map06.Derive(m)
	if err != nil {
		t.Fatalf("0.6 variant of %s: %v", path, err)
	}
	if v.Same {
		t.Fatalf("0.6 variant of %s is the map itself; the test needs a converted map", path)
	}
	t.Logf("%s: %d version-4 tile layers; 0.6 variant %d bytes, crc %08x, embeds %v", path, v4, v.Size, v.CRC, v.Embedded)
	return v
}

func innerStockMap(t *testing.T, name string) {
	netns.RequireLoopbackOnly(t)
	path := filepath.Join(stockMapDir, name+".map")
	want := stockVariant(t, name, path)
	out, bin := filepath.Join(os.Getenv(outEnv), name), os.Getenv(binEnv)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	serverLog := filepath.Join(out, "server.log")
	srv := start(t, "twserver", serverLog, nil, nil, out, bin,
		"-bind", "127.0.0.1", "-port", e2ePort, "-log-level", "debug", "-no-console", "-map", path)
	if !waitLog(serverLog, regexp.MustCompile(`listening`), 10*time.Second) {
		t.Fatalf("twserver did not start (see %s)", serverLog)
	}
	client, clientLog, home := startRealClientKind(t, clientDDNet, out, "127.0.0.1:"+e2ePort, "bind f9 quit")
	if !waitLog(clientLog, regexp.MustCompile(`state change\. last=2 current=3`), 60*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("client never reached the online state; client exited=%v; client log tail:\n%s", client.exited(), tail(b, 40))
	}
	if !waitLog(serverLog, regexp.MustCompile(`entered the game`), 10*time.Second) {
		t.Errorf("server did not log that the player entered the game")
	}
	time.Sleep(2 * time.Second) // let the tee spawn and the map draw
	if wid := firstLine(xdo(t, "search", "--name", clientDDNet.windowRe)); wid != "" {
		xdo(t, "mousemove", "--window", wid, "400", "200")
		xdo(t, "windowfocus", wid)
	}
	shot := filepath.Join(out, "shot_"+name+".png")
	screenshot(t, os.Getenv("DISPLAY"), out, filepath.Base(shot))
	if n := imageColours(t, shot); n >= 0 && n < 64 {
		t.Errorf("screenshot %s has only %d colours: the map did not draw", shot, n)
	}

	cl := quitClient(t, client, clientLog)
	if m := ddnetErrLineRe.FindAll(cl, -1); len(m) > 0 {
		t.Errorf("DDNet client logged %d error/warning lines, first: %s", len(m), m[0])
	}
	maps, _ := filepath.Glob(filepath.Join(home, clientDDNet.userDir, "downloadedmaps/*.map"))
	if len(maps) != 1 {
		t.Fatalf("downloaded maps in the client's home: %v, want exactly one", maps)
	}
	got, err := os.ReadFile(maps[0])
	if err != nil || !bytes.Equal(got, want.Data) {
		t.Errorf("the client's downloaded map %s (%d bytes) differs from the 0.6 variant of %s (%d bytes) (%v)", maps[0], len(got), path, want.Size, err)
	}
	if err := srv.stop(t); err != nil {
		t.Errorf("twserver exit: %v", err)
	}
}

// imageColours returns the number of distinct colours of a picture (by
// ImageMagick's identify), or -1 when it cannot tell.
func imageColours(t *testing.T, path string) int {
	t.Helper()
	b, err := exec.Command("identify", "-format", "%k", path).Output()
	if err != nil {
		t.Logf("identify %s: %v", path, err)
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return n
}

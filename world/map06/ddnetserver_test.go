package map06

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"twserver/internal/refserver"
	"twserver/internal/testenv"
	"twserver/world/twmap"
)

// ddnetServerInnerEnv marks the re-run of the test inside a private
// network namespace.
const ddnetServerInnerEnv = "TWSERVER_MAP06_DDNET_INNER"

// TestRealDDNetServerLoadsVariant: the real DDNet-Server 16.4 serves each
// map the way it serves both client families, the 0.6 variant as
// maps/NAME.map and the original 0.7 file as maps7/NAME.map. It loads the
// variant with DDNet's map loader (the one its clients share), builds its
// world on it, reports the same SHA-256 for both files as Derive and the map
// do, and keeps running. (Given the original dm1 as maps/dm1.map instead,
// the same server aborts with heap corruption right after loading it: it
// writes the run-length blob as width*height raw tiles. Seen by hand, not
// asserted here.) The maps: dm1, ctf2 (when teeworlds-data is
// installed) and the embedded default map. The server runs only inside a
// private network namespace with nothing but lo (`unshare --net`), bound to
// 127.0.0.1 and registering nowhere.
func TestRealDDNetServerLoadsVariant(t *testing.T) {
	if refserver.Inner(t, ddnetServerInnerEnv) {
		ddnetServerInner(t)
		return
	}
	if testing.Short() {
		t.Skip("reference-server test skipped in -short mode")
	}
	testenv.Stat(t, refserver.DDNetPath, "ddnet-server")
	refserver.RunInner(t, ddnetServerInnerEnv)
}

func ddnetServerInner(t *testing.T) {
	b, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	dm1, err := twmap.Load("dm1", b)
	if err != nil {
		t.Fatal(err)
	}
	maps := []*twmap.Map{dm1, twmap.Default()}
	if b, err := os.ReadFile(filepath.Join(systemMaps, "ctf2.map")); err == nil {
		ctf2, err := twmap.Load("ctf2", b)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, ctf2)
	} else {
		testenv.Partly(t, "ctf2 (Debian package teeworlds-data; dm1 and the default map are served without it)", err)
	}
	for _, m := range maps {
		t.Run(m.Name, func(t *testing.T) { ddnetServe(t, m) })
	}
}

func ddnetServe(t *testing.T, m *twmap.Map) {
	v, err := Derive(m)
	if err != nil {
		t.Fatal(err)
	}
	name := "v06_" + m.Name
	srv := refserver.StartDDNet(t, map[string][]byte{"maps/" + name + ".map": v.Data, "maps7/" + name + ".map": m.Data},
		"sv_map "+name, "sv_sixup 1")

	want := []string{
		"maps/" + name + ".map sha256 is " + hex.EncodeToString(v.SHA256[:]),
		"maps7/" + name + ".map sha256 is " + hex.EncodeToString(m.SHA256[:]),
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := srv.Logs.String()
		if strings.Contains(s, "failed to load map") || strings.Contains(s, "couldn't load map") {
			t.Fatalf("DDNet-Server refused the map:\n%s", s)
		}
		if strings.Contains(s, want[0]) && strings.Contains(s, want[1]) {
			break
		}
		if ended, err := srv.Exited(); ended {
			t.Fatalf("DDNet-Server exited (%v) before loading the map:\n%s", err, s)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The game world is built right after the load; it must keep running.
	time.Sleep(1500 * time.Millisecond)
	if ended, err := srv.Exited(); ended {
		t.Fatalf("DDNet-Server exited (%v) after loading the map:\n%s", err, srv.Logs.String())
	}
	srv.Stop(t, 10*time.Second)
	t.Logf("DDNet-Server 16.4 loaded %s: 0.6 variant %d bytes (sha256 %x...), 0.7 original %d bytes", name, v.Size, v.SHA256[:4], m.Size)
}

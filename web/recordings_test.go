package web

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/config"
	"twserver/internal/servertest"
	"twserver/server"
	"twserver/world/twmap"
)

// TestRecordingNames: only plain recording names are served, read from
// the directory itself: no "..", no absolute path, no symbolic link (in or
// out of the directory), no directory, no other file.
func TestRecordingNames(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "rec")
	write := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir, "a1b2.teehistorian"), "th")
	write(filepath.Join(dir, "game_1.demo"), "demo")
	write(filepath.Join(dir, "notes.txt"), "x")
	write(filepath.Join(root, "secret.demo"), "secret")
	for _, l := range [][2]string{{filepath.Join(root, "secret.demo"), "out.demo"}, {"game_1.demo", "in.demo"}, {"../secret.demo", "rel.demo"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		body string // "" = refused
	}{
		{"a1b2.teehistorian", "th"},
		{"game_1.demo", "demo"},
		{"../secret.demo", ""},
		{"..", ""},
		{"..demo", ""},
		{".demo", ""},
		{filepath.Join(root, "secret.demo"), ""},
		{"/etc/passwd", ""},
		{"rec/../secret.demo", ""},
		{`..\secret.demo`, ""},
		{"out.demo", ""},
		{"in.demo", ""},
		{"rel.demo", ""},
		{"sub.demo", ""},
		{"notes.txt", ""},
		{"missing.demo", ""},
		{"a1b2.teehistorian\x00", ""},
		{"", ""},
	} {
		body := ""
		if _, err := recordingKind(tt.name); err == nil {
			if f, _, err := openRecording(dir, tt.name); err == nil {
				b, _ := io.ReadAll(f)
				f.Close()
				body = string(b)
			}
		}
		if body != tt.body {
			t.Errorf("%q: served %q, want %q", tt.name, body, tt.body)
		}
	}
	list, err := recordingsOf(dir, "8303", "game_1.demo")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "a1b2.teehistorian" || list[0].Kind != KindTeehistorian || list[0].Bytes != 2 ||
		list[0].URL != "/api/games/8303/recordings/a1b2.teehistorian" {
		t.Errorf("listing (game_1.demo busy): %+v", list)
	}
	for i := range MaxRecordings + 5 {
		write(filepath.Join(dir, "g"+strconv.Itoa(i)+".demo"), "d")
	}
	if list, err := recordingsOf(dir, "8303"); err != nil || len(list) != MaxRecordings {
		t.Errorf("listing of %d files: %d, %v", MaxRecordings+7, len(list), err)
	}
	if list, err := recordingsOf(filepath.Join(root, "none"), "8303"); err != nil || len(list) != 0 {
		t.Errorf("missing directory: %v, %v", list, err)
	}
}

// startRecordingGame runs a real game that records demos and
// teehistorians into dir, on the maps alpha and beta.
func startRecordingGame(t *testing.T, dir string) *server.Server {
	t.Helper()
	maps := t.TempDir()
	for _, n := range []string{"alpha", "beta"} {
		if err := os.WriteFile(filepath.Join(maps, n+".map"), twmap.DefaultData(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default()
	cfg.Server.Bind, cfg.Server.Port, cfg.Server.Name = "127.0.0.1", 0, "recorded"
	cfg.Map.Dir, cfg.Map.Rotation = maps, []string{"alpha", "beta"}
	cfg.Record.Dir, cfg.Record.Demo, cfg.Record.Teehistorian = dir, true, true
	return servertest.StartServer(t, cfg)
}

// recordingsOfGame returns the game's listing from the API.
func recordingsOfGame(t *testing.T, c *http.Client, url string) []apiRecording {
	t.Helper()
	var l struct {
		Version    int
		Recordings []apiRecording
	}
	if st := getJSON(t, c, url, &l); st != 200 || l.Version != APIVersion {
		t.Fatalf("%s: %d", url, st)
	}
	return l.Recordings
}

// TestRecordingsAPI: a recording game lists no recording while its first
// game runs; after a map change the first game's demo and teehistorian
// are listed and served, the running game's are not; bad names are 404.
func TestRecordingsAPI(t *testing.T) {
	dir := t.TempDir()
	s := startRecordingGame(t, dir)
	port := strconv.Itoa(int(s.Addr().Port()))
	_, ts := startWebGames(t, Options{}, Game{Port: int(s.Addr().Port()), Server: s, RecordDir: dir})
	c := ts.Client()
	base := ts.URL + "/api/games/" + port + "/recordings"
	if l := recordingsOfGame(t, c, base); len(l) != 0 {
		t.Fatalf("recordings while the first game runs: %+v", l)
	}
	running, _ := os.ReadDir(dir)
	if len(running) != 2 {
		t.Fatalf("%d files being recorded, want a demo and a teehistorian", len(running))
	}
	if st := getJSON(t, c, base+"/"+running[0].Name(), nil); st != 404 {
		t.Errorf("running game's %s: %d, want 404", running[0].Name(), st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.RunAdmin(ctx, "test", "change_map beta"); err != nil {
		t.Fatal(err)
	}
	var l []apiRecording
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if l = recordingsOfGame(t, c, base); len(l) == 2 {
			break
		}
	}
	kinds := map[string]bool{}
	for _, r := range l {
		kinds[r.Kind] = true
		resp, err := c.Get(ts.URL + r.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want, _ := os.ReadFile(filepath.Join(dir, r.Name))
		if resp.StatusCode != 200 || int64(len(b)) != r.Bytes || string(b) != string(want) || resp.Header.Get("Content-Disposition") == "" {
			t.Errorf("%s: %d, %d bytes (listed %d)", r.URL, resp.StatusCode, len(b), r.Bytes)
		}
	}
	if len(l) != 2 || !kinds[KindDemo] || !kinds[KindTeehistorian] {
		t.Errorf("after the map change: %+v", l)
	}
	// the finished teehistorian's viewer (right after the map change the
	// newest frame may still name the first game's files as the ones being
	// written: the listing is asked again until the viewer opens its file)
	for _, r := range l {
		if (r.Kind == KindTeehistorian) != (r.Watch == "/watch/"+r.Name) {
			t.Errorf("%s: watch %q", r.Name, r.Watch)
		}
	}
	opened := ""
	for end := time.Now().Add(5 * time.Second); opened == "" && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		for _, r := range recordingsOfGame(t, c, base) {
			var info map[string]any
			if r.Kind == KindTeehistorian && getJSON(t, c, ts.URL+r.Watch+"/info", &info) == 200 && info["map"] == "alpha" {
				opened = r.Name
			}
		}
	}
	if opened == "" {
		t.Error("no finished teehistorian opened in the viewer")
	}
	now, _ := os.ReadDir(dir) // the second game's file, being written, is not watched
	for _, f := range now {
		if n := f.Name(); strings.HasSuffix(n, ".teehistorian") && n != opened {
			if st := getJSON(t, c, ts.URL+"/watch/"+n+"/info", nil); st != 404 {
				t.Errorf("the running game's %s: %d", n, st)
			}
		}
	}
	if st := getJSON(t, c, ts.URL+"/watch/x.teehistorian/info", nil); st != 404 {
		t.Errorf("no such recording: %d", st)
	}
	for _, p := range []string{"/..%2fsecret.demo", "/%2e%2e", "/x.map", "/%2fetc%2fpasswd.demo"} {
		resp, err := c.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
}

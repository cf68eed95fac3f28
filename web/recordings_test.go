package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"twserver/config"
	"twserver/internal/servertest"
	"twserver/server"
	"twserver/watch"
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
	const prefix = "/api/games/8303/recordings/"
	list, err := recordingsOf(dir, prefix, func(p string) bool { return p == filepath.Join(dir, "game_1.demo") })
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
	if list, err := recordingsOf(dir, prefix, notBusy); err != nil || len(list) != MaxRecordings {
		t.Errorf("listing of %d files: %d, %v", MaxRecordings+7, len(list), err)
	}
	if list, err := recordingsOf(filepath.Join(root, "none"), prefix, notBusy); err != nil || len(list) != 0 {
		t.Errorf("missing directory: %v, %v", list, err)
	}
}

func notBusy(string) bool { return false }

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

// recordingsOfGame returns the game's listing from the API (with hdr's
// headers), and its "access".
func recordingsOfGame(t *testing.T, c *http.Client, url string, hdr ...string) ([]apiRecording, string) {
	t.Helper()
	st, b := download(t, c, url, hdr...)
	var l struct {
		Version    int
		Access     string
		Recordings []apiRecording
	}
	if err := json.Unmarshal(b, &l); err != nil || st != 200 || l.Version != APIVersion {
		t.Fatalf("%s: %d, %v", url, st, err)
	}
	return l.Recordings, l.Access
}

// download GETs u with hdr's headers (name, value, ...) and returns the
// status and body.
func download(t *testing.T, c *http.Client, u string, hdr ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// finishFirstGame changes s's map and waits until the first game's demo
// and teehistorian are closed (listed by the public handler at list).
func finishFirstGame(t *testing.T, s *server.Server, c *http.Client, list string) []apiRecording {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.RunAdmin(ctx, "test", "change_map beta"); err != nil {
		t.Fatal(err)
	}
	var l []apiRecording
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if l, _ = recordingsOfGame(t, c, list); len(l) == 2 {
			break
		}
	}
	return l
}

// TestRecordingsAPI: with public recordings, a recording game lists no
// recording while its first game runs; after a map change the first
// game's demo and teehistorian are listed and served, the running game's
// are not; bad names are 404, and a traversal does not reach the file
// beside the directory.
func TestRecordingsAPI(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "rec")
	secret := filepath.Join(root, "secret.demo") // what a traversal would serve
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startRecordingGame(t, dir)
	port := strconv.Itoa(int(s.Addr().Port()))
	_, ts := startWebGames(t, Options{Recordings: RecordingsPublic, PublicChat: true}, Game{Port: int(s.Addr().Port()), Server: s, RecordDir: dir})
	c := ts.Client()
	base := ts.URL + "/api/games/" + port + "/recordings"
	if l, access := recordingsOfGame(t, c, base); len(l) != 0 || access != "public" {
		t.Fatalf("recordings while the first game runs: %+v, %q", l, access)
	}
	running, _ := os.ReadDir(dir)
	if len(running) != 2 {
		t.Fatalf("%d files being recorded, want a demo and a teehistorian", len(running))
	}
	if st, _ := download(t, c, base+"/"+running[0].Name()); st != 404 {
		t.Errorf("running game's %s: %d, want 404", running[0].Name(), st)
	}
	l := finishFirstGame(t, s, c, base)
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
		l, _ := recordingsOfGame(t, c, base)
		for _, r := range l {
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
	// a name that leaves dir would reach secret (relative, absolute)
	for _, p := range []string{"/..%2fsecret.demo", "/%2e%2e%2fsecret.demo", "/" + url.PathEscape(secret), "/%2e%2e", "/x.map", "/%2fetc%2fpasswd.demo"} {
		st, b := download(t, c, base+p)
		if st != 404 || strings.Contains(string(b), "secret") {
			t.Errorf("%s: %d %q, want 404", p, st, b)
		}
	}
}

// TestRecordingsModes: by default ("admin") the public API lists no
// recording and serves none, the admin routes do after the login (cookie
// or bearer token) and refuse without; "public" serves them without a
// login; "off" lists and serves nothing, even to the admin. Public
// recordings with the chat private are refused.
func TestRecordingsModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rec")
	s := startRecordingGame(t, dir)
	port := strconv.Itoa(int(s.Addr().Port()))
	g := Game{Port: int(s.Addr().Port()), Server: s, RecordDir: dir}
	_, pub := startWebGames(t, Options{Recordings: RecordingsPublic, PublicChat: true}, g)
	_, adm := startWebGames(t, Options{AdminToken: testToken}, g)
	_, off := startWebGames(t, Options{AdminToken: testToken, Recordings: RecordingsOff, PublicChat: true}, g)
	path := "/api/games/" + port + "/recordings"
	l := finishFirstGame(t, s, pub.Client(), pub.URL+path)
	if len(l) != 2 {
		t.Fatalf("public listing after the map change: %+v", l)
	}
	name := l[0].Name
	want, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil || len(want) == 0 {
		t.Fatal(name, err)
	}
	if st, b := download(t, pub.Client(), pub.URL+path+"/"+name); st != 200 || string(b) != string(want) {
		t.Errorf("public: download without login: %d, %d bytes", st, len(b))
	}
	bearer := []string{"Authorization", "Bearer " + testToken}
	// admin (the default): nothing public
	c := adm.Client()
	if l, access := recordingsOfGame(t, c, adm.URL+path); len(l) != 0 || access != "admin" {
		t.Errorf("admin mode: public listing %+v, %q", l, access)
	}
	if st, _ := download(t, c, adm.URL+path+"/"+name); st != 404 {
		t.Errorf("admin mode: public download %d, want 404", st)
	}
	for _, hdr := range [][]string{nil, {"Authorization", "Bearer wrong-token-0123456789"}} {
		if st, _ := download(t, c, adm.URL+"/admin"+path, hdr...); st != 401 {
			t.Errorf("admin mode: listing with %v: %d, want 401", hdr, st)
		}
		if st, _ := download(t, c, adm.URL+"/admin"+path+"/"+name, hdr...); st != 401 {
			t.Errorf("admin mode: download with %v: %d, want 401", hdr, st)
		}
	}
	al, _ := recordingsOfGame(t, c, adm.URL+"/admin"+path, bearer...)
	if len(al) != 2 || al[0].URL != "/admin"+path+"/"+al[0].Name {
		t.Errorf("admin mode: admin listing %+v", al)
	}
	if st, b := download(t, c, adm.URL+"/admin"+path+"/"+name, bearer...); st != 200 || string(b) != string(want) {
		t.Errorf("admin mode: download with the token: %d, %d bytes", st, len(b))
	}
	cookie := login(t, adm)
	if st, b := download(t, c, adm.URL+"/admin"+path+"/"+name, "Cookie", cookie); st != 200 || string(b) != string(want) {
		t.Errorf("admin mode: download with the session cookie: %d, %d bytes", st, len(b))
	}
	// off: nothing, to anyone
	for _, hdr := range [][]string{nil, bearer} {
		for _, p := range []string{path, "/admin" + path} {
			if hdr == nil && p != path {
				continue // 401, as above
			}
			if l, access := recordingsOfGame(t, off.Client(), off.URL+p, hdr...); len(l) != 0 || access != "off" {
				t.Errorf("off: %s with %v lists %+v, %q", p, hdr, l, access)
			}
			if st, _ := download(t, off.Client(), off.URL+p+"/"+name, hdr...); st != 404 {
				t.Errorf("off: %s with %v serves: %d", p, hdr, st)
			}
		}
	}
	if _, err := New([]Game{g}, Options{Recordings: RecordingsPublic}); err == nil {
		t.Error("public recordings with the chat private accepted")
	}
}

// TestWatchChild: with Options.WatchChild the viewer replays a finished
// recording in a child process of that executable (this test binary:
// TestMain runs watch.RunChild), and the page gets its map layer; the
// control: an executable that does not exist fails the build with the
// child's error, so the build did go through the child.
func TestWatchChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "rec")
	s := startRecordingGame(t, dir)
	port := strconv.Itoa(int(s.Addr().Port()))
	game := Game{Port: int(s.Addr().Port()), Server: s, RecordDir: dir}
	_, ts := startWebGames(t, Options{Recordings: RecordingsPublic, PublicChat: true, WatchChild: exe}, game)
	_, bad := startWebGames(t, Options{Recordings: RecordingsPublic, PublicChat: true, WatchChild: filepath.Join(t.TempDir(), "none")}, game)
	c := ts.Client()
	l := finishFirstGame(t, s, c, ts.URL+"/api/games/"+port+"/recordings")
	for _, r := range l {
		if r.Kind != KindTeehistorian {
			continue
		}
		for _, site := range []struct {
			url  string
			fail bool
		}{{ts.URL, false}, {bad.URL, true}} {
			var info struct {
				Done  bool   `json:"done"`
				Error string `json:"error"`
			}
			for end := time.Now().Add(10 * time.Second); !info.Done && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				getJSON(t, c, site.url+r.Watch+"/info", &info)
			}
			// the game had no player: no chunk, but the map layer the
			// child sent
			ok := info.Done && info.Error == "" && getJSON(t, c, site.url+r.Watch+"/map", nil) == http.StatusOK
			failed := info.Done && strings.Contains(info.Error, watch.ErrChild.Error())
			if site.fail && !failed || !site.fail && !ok {
				t.Errorf("%s%s: %+v", site.url, r.Watch, info)
			}
		}
	}
}

// TestRecordingsListBound: a game's recordings are read from its directory
// at most once in RecordingsListEvery, however many listings are asked for
// (each read stats every file); a file written meanwhile is listed once
// the listing is that old.
func TestRecordingsListBound(t *testing.T) {
	s := startGame(t, "listing", "dm")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.demo"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	port := int(s.Addr().Port())
	h, ts := startWebGames(t, Options{Recordings: RecordingsPublic, PublicChat: true, Now: clock},
		Game{Port: port, Server: s, RecordDir: dir})
	g := h.byPort[port]
	reads := func() int { g.recs.mu.Lock(); defer g.recs.mu.Unlock(); return g.recs.reads }
	base := ts.URL + "/api/games/" + strconv.Itoa(port) + "/recordings"
	c := ts.Client()
	for range 20 {
		if l, _ := recordingsOfGame(t, c, base); len(l) != 1 || l[0].URL != "/api/games/"+strconv.Itoa(port)+"/recordings/a.demo" {
			t.Fatalf("listing %+v", l)
		}
	}
	if n := reads(); n != 1 {
		t.Errorf("20 listings within RecordingsListEvery read the directory %d times, want 1", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.demo"), []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(RecordingsListEvery)
	mu.Unlock()
	if l, _ := recordingsOfGame(t, c, base); len(l) != 2 || reads() != 2 {
		t.Errorf("after RecordingsListEvery: %d listed, %d reads, want 2 and 2", len(l), reads())
	}
}

package web

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/refserver"
	"twserver/live"
	"twserver/loadclient"
)

func TestParsePort(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"8303", 8303, true}, {"1", 1, true}, {"65535", 65535, true},
		{"", 0, false}, {"0", 0, false}, {"08303", 0, false}, {"65536", 0, false},
		{"-1", 0, false}, {"+80", 0, false}, {"80 ", 0, false}, {"123456", 0, false},
		{"8x", 0, false}, {"٣", 0, false},
	} {
		got, err := parsePort(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parsePort(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func FuzzParsePort(f *testing.F) {
	for _, s := range []string{"8303", "0", "65536", "-1", "", "00001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parsePort(s)
		if err != nil {
			return
		}
		if n < 1 || n > 65535 || strconv.Itoa(n) != s {
			t.Fatalf("parsePort(%q) = %d", s, n)
		}
	})
}

func TestQuantileMs(t *testing.T) {
	// 100 observations: 90 below 0.1 ms, 10 between 1 and 2 ms.
	cum := make([]uint64, 15)
	for i := range cum {
		cum[i] = 90
		if i >= 4 { // TickBuckets[4] = 0.002 s
			cum[i] = 100
		}
	}
	if q := quantileMs(cum, 100, 0.99); q <= 1 || q > 2 {
		t.Errorf("p99 = %v ms, want within (1, 2]", q)
	}
	if q := quantileMs(cum, 100, 0.5); q <= 0 || q > 0.1 {
		t.Errorf("p50 = %v ms, want within (0, 0.1]", q)
	}
	if q := quantileMs(cum, 0, 0.99); q != 0 {
		t.Errorf("empty p99 = %v", q)
	}
}

// getJSON fetches url into v and returns the status.
func getJSON(t *testing.T, c *http.Client, u string, v any) int {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v != nil {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
	}
	return resp.StatusCode
}

// TestAPI: a real game with two synthetic clients: /api/games lists both
// games of the process with the clients and the servers.json field names,
// /api/games/{port} has the events, the map is the game layer, unknown
// games are 404, and the live stream carries frames and the chat line.
func TestAPI(t *testing.T) {
	a := startGame(t, "alpha", "dm")
	b := startGame(t, "beta", "ctf")
	_, ts := startWeb(t, Options{PublicChat: true, SampleEvery: 100 * time.Millisecond}, a, b)
	var bs bots
	cl := bs.join(t, a, "one", loadclient.PatternWalk)
	bs.join(t, a, "two", loadclient.PatternIdle)
	c := ts.Client()

	var games struct {
		Version int
		Games   []map[string]any
	}
	if st := getJSON(t, c, ts.URL+"/api/games", &games); st != 200 || games.Version != APIVersion || len(games.Games) != 2 {
		t.Fatalf("status %d, %+v", st, games)
	}
	g0 := games.Games[0]
	if g0["name"] != "alpha" || g0["game_type"] != "DM" || g0["state"] == StateEmpty || games.Games[1]["name"] != "beta" {
		t.Errorf("games: %v", games.Games)
	}
	clients := g0["clients"].([]any)
	if len(clients) != 2 {
		t.Fatalf("clients %v", clients)
	}
	for _, k := range []string{"name", "clan", "country", "score", "is_player", "team", "ping", "client"} {
		if _, ok := clients[0].(map[string]any)[k]; !ok {
			t.Errorf("client has no %q: %v", k, clients[0])
		}
	}

	port := strconv.Itoa(int(a.Addr().Port()))
	resp, err := c.Get(ts.URL + "/api/games/" + port + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	time.Sleep(100 * time.Millisecond)
	say(t, cl, "hello <world>")
	r := bufio.NewReader(resp.Body)
	frames, chat, game := 0, false, false
	deadline := time.Now().Add(3 * time.Second)
	var lastX string
	moved := false
	for time.Now().Before(deadline) && (frames < 10 || !chat || !moved) {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if strings.Contains(data, `"clients":[`) && strings.Contains(data, `"name":"one"`) {
			game = true
		}
		if strings.Contains(data, `"kind":"chat"`) && strings.Contains(data, `"text":"hello \u003cworld\u003e"`) {
			chat = true
		}
		var f apiFrame
		if json.Unmarshal([]byte(data), &f) == nil && f.Seq != 0 {
			frames++
			for _, tee := range f.Tees {
				x := strconv.Itoa(int(tee[1])) + "," + strconv.Itoa(int(tee[2]))
				if tee[0] == 0 {
					if lastX != "" && x != lastX {
						moved = true
					}
					lastX = x
				}
			}
		}
	}
	if frames < 10 || !chat || !moved || !game {
		t.Errorf("in 3 s: %d frames, chat line seen %v, tee 0 moved %v, game message %v", frames, chat, moved, game)
	}

	var one struct {
		Game   apiGame
		Events []apiEvent
	}
	getJSON(t, c, ts.URL+"/api/games/"+port, &one)
	if one.Game.Port != int(a.Addr().Port()) || len(one.Game.Clients) != 2 || len(one.Events) < 3 {
		t.Errorf("game %+v events %+v", one.Game, one.Events)
	}
	var m struct {
		Width, Height int
		Tiles         []byte
	}
	getJSON(t, c, ts.URL+"/api/games/"+port+"/map", &m)
	if m.Width <= 0 || len(m.Tiles) != m.Width*m.Height || m.Tiles[0]&1 == 0 {
		t.Errorf("map %dx%d, %d tiles", m.Width, m.Height, len(m.Tiles))
	}
	for _, p := range []string{"/api/games/1", "/api/games/x", "/api/games/0" + port, "/api/games/" + port + "/nope"} {
		if st := getJSON(t, c, ts.URL+p, nil); st != 404 {
			t.Errorf("%s: %d, want 404", p, st)
		}
	}
	var h struct{ Samples []Sample }
	time.Sleep(300 * time.Millisecond)
	getJSON(t, c, ts.URL+"/api/games/"+port+"/history", &h)
	if len(h.Samples) < 2 || h.Samples[len(h.Samples)-1].Players != 2 {
		t.Fatalf("history %+v", h.Samples)
	}
	// every snapshot is at least an empty delta (SNAPEMPTY: 4 or 5 bytes)
	if last := h.Samples[len(h.Samples)-1]; last.SnapshotBytes < 4 || last.SnapshotBytes > last.SnapshotBytesMax {
		t.Errorf("snapshot bytes mean %v max %v", last.SnapshotBytes, last.SnapshotBytesMax)
	}
}

// TestPublicChatOff: with public_chat off no chat line leaves the API or
// the live stream. The controls: a second handler of the same game with
// public_chat on shows the line in both (so it reached the game), and the
// quiet stream carries a join that came after the line.
func TestPublicChatOff(t *testing.T) {
	a := startGame(t, "quiet", "dm")
	port := strconv.Itoa(int(a.Addr().Port()))
	_, quiet := startWeb(t, Options{PublicChat: false}, a)
	_, loud := startWeb(t, Options{PublicChat: true}, a)
	quietStream := collectStream(t, quiet.URL+"/api/games/"+port+"/events")
	loudStream := collectStream(t, loud.URL+"/api/games/"+port+"/events")
	apiOf := func(ts *httptest.Server) string {
		resp, err := ts.Client().Get(ts.URL + "/api/games/" + port)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(body)
	}
	var bs bots
	cl := bs.join(t, a, "talker", loadclient.PatternIdle)
	say(t, cl, "secret words")
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("%s: not within 10 s", what)
			}
		}
	}
	waitFor("the line in the public-chat API", func() bool { return strings.Contains(apiOf(loud), "secret words") })
	waitFor("the line in the public-chat stream", func() bool { return strings.Contains(loudStream.String(), "secret words") })
	bs.join(t, a, "came-later", loadclient.PatternIdle)
	waitFor("the later join in the quiet stream", func() bool { return strings.Contains(quietStream.String(), "came-later") })
	waitFor("the later join in the quiet API", func() bool { return strings.Contains(apiOf(quiet), "came-later") })
	if body := apiOf(quiet); strings.Contains(body, "secret") || !strings.Contains(body, `"kind":"join"`) {
		t.Errorf("quiet API: %s", body)
	}
	if strings.Contains(quietStream.String(), "secret") {
		t.Errorf("the quiet stream carries the chat line")
	}
}

// collectStream reads a live stream at u into a buffer until the test ends.
func collectStream(t *testing.T, u string) *refserver.Buffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d", u, resp.StatusCode)
	}
	var buf refserver.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&buf, resp.Body); close(done) }()
	t.Cleanup(func() { cancel(); <-done; resp.Body.Close() })
	return &buf
}

// TestBodyBound: a body over MaxBodyBytes is refused.
func TestBodyBound(t *testing.T) {
	a := startGame(t, "body", "dm")
	_, ts := startWeb(t, Options{AdminToken: testToken}, a)
	form := url.Values{"token": {strings.Repeat("x", MaxBodyBytes+10)}}
	resp, err := ts.Client().PostForm(ts.URL+"/admin/login", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400", resp.StatusCode)
	}
}

// TestEmptyGame: an empty game (which sleeps) answers with its state and
// map: a request wakes it for frames.
func TestEmptyGame(t *testing.T) {
	a := startGame(t, "empty", "dm")
	time.Sleep(1500 * time.Millisecond) // asleep by now
	_, ts := startWeb(t, Options{}, a)
	var one struct{ Game apiGame }
	getJSON(t, ts.Client(), ts.URL+"/api/games/"+strconv.Itoa(int(a.Addr().Port())), &one)
	if one.Game.State == StateEmpty || one.Game.Map == "" || len(one.Game.Clients) != 0 {
		t.Errorf("empty game: %+v", one.Game)
	}
	if st := getJSON(t, ts.Client(), ts.URL+"/api/games/"+strconv.Itoa(int(a.Addr().Port()))+"/map", nil); st != 200 {
		t.Errorf("map of an empty game: %d", st)
	}
}

// TestEventFields: a kill event carries its victim and weapon even when
// they are 0 (client 0, the hammer); other events carry neither.
func TestEventFields(t *testing.T) {
	f := &live.Frame{Events: []live.Event{
		{Seq: 1, Kind: live.EventKill, Client: 3, Name: "ada", Victim: 0, VictimName: "bob", Weapon: 0},
		{Seq: 2, Kind: live.EventKill, Client: 0, Name: "bob", Victim: 0, VictimName: "bob", Weapon: -1},
		{Seq: 3, Kind: live.EventChat, Client: 0, Name: "bob", Text: "hi"},
		{Seq: 4, Kind: live.EventLeave, Client: 0, Name: "bob"},
	}}
	for i, want := range []struct{ has, hasNot string }{
		{`"victim":0,"victim_name":"bob","weapon":0`, ""},
		{`"victim":0,"victim_name":"bob","weapon":-1`, ""},
		{`"text":"hi"`, `"victim"`},
		{`"name":"bob"`, `"weapon"`},
	} {
		b, err := json.Marshal(eventsOf(f, 0, true)[i])
		if err != nil {
			t.Fatal(err)
		}
		if js := string(b); !strings.Contains(js, want.has) || want.hasNot != "" && strings.Contains(js, want.hasNot) {
			t.Errorf("event %d: %s, want %s and no %s", i, js, want.has, want.hasNot)
		}
	}
}

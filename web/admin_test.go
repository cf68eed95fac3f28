package web

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/console"
	"twserver/loadclient"
	"twserver/server"
)

// post sends an admin form with optional headers; it returns the status
// and the decoded answer.
func post(t *testing.T, c *http.Client, u string, form url.Values, hdr map[string]string) (int, map[string]any) {
	t.Helper()
	return request(t, c, "POST", u, "", form, hdr)
}

// request sends a form by method under host (empty: u's) with optional
// headers; it returns the status and the decoded answer.
func request(t *testing.T, c *http.Client, method, u, host string, form url.Values, hdr map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, u, strings.NewReader(form.Encode()))
	req.Host = host
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// TestAdminToken: an action needs the token: refused without it or with
// a wrong one, run with it (the kicked client leaves the game); three
// wrong tokens ban the address, even for the right token.
func TestAdminToken(t *testing.T) {
	var mu sync.Mutex
	var econ []string
	a := startGame(t, "admin", "dm", func(s *server.Server) {
		s.OnConsoleLine(console.LevelAddInfo, func(l console.Line) {
			mu.Lock()
			econ = append(econ, l.Text)
			mu.Unlock()
		})
	})
	_, ts := startWeb(t, Options{AdminToken: testToken}, a)
	var bs bots
	victim := bs.join(t, a, "victim", loadclient.PatternIdle)
	_ = victim
	c := ts.Client()
	u := ts.URL + "/admin/api/action"
	kick := url.Values{"action": {"kick"}, "id": {"0"}, "reason": {"test"}}
	if st, _ := post(t, c, u, kick, nil); st != http.StatusUnauthorized {
		t.Errorf("without token: %d", st)
	}
	if st, _ := post(t, c, u, kick, map[string]string{"Authorization": "Bearer wrong"}); st != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", st)
	}
	st, out := post(t, c, u, url.Values{"action": {"command"}, "line": {"status"}}, map[string]string{"Authorization": "Bearer " + testToken})
	if st != 200 || !strings.Contains(strings.Join(toStrings(out["output"]), "\n"), "victim") {
		t.Errorf("status with token: %d %v", st, out)
	}
	if st, out := post(t, c, u, kick, map[string]string{"Authorization": "Bearer " + testToken}); st != 200 {
		t.Fatalf("kick with token: %d %v", st, out)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		var g struct{ Game apiGame }
		getJSON(t, c, ts.URL+"/api/games/"+strconv.Itoa(int(a.Addr().Port())), &g)
		if len(g.Game.Clients) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kicked client still in game: %+v", g.Game.Clients)
		}
		time.Sleep(50 * time.Millisecond)
	}
	set := url.Values{"action": {"setting"}, "name": {"sv_rcon_password"}, "value": {"hunter2-secret"}}
	if st, out := post(t, c, u, set, map[string]string{"Authorization": "Bearer " + testToken}); st != 200 {
		t.Fatalf("setting with token: %d %v", st, out)
	}
	mu.Lock()
	audit := strings.Join(econ, "\n")
	mu.Unlock()
	if !strings.Contains(audit, "admin='web:127.0.0.1 (token header)' rcon='kick 0 \"test\"' result='ok'") {
		t.Errorf("no audit line of the kick among the console lines:\n%s", audit)
	}
	if !strings.Contains(audit, "rcon='sv_rcon_password (set)' result='ok'") || strings.Contains(audit, "hunter2") {
		t.Errorf("the password setting's audit line is missing or shows the value:\n%s", audit)
	}
	for range MaxLoginTries - 1 {
		post(t, c, u, kick, map[string]string{"Authorization": "Bearer wrong"})
	}
	// banned, the right token is refused saying so, as the login form does
	// (before: 401 "admin token required", which sent the operator to check
	// a token that was right)
	if st, body := post(t, c, u, url.Values{"action": {"vote_cancel"}}, map[string]string{"Authorization": "Bearer " + testToken}); st != http.StatusTooManyRequests || body["error"] != errBanned {
		t.Errorf("banned address with the right token: %d %v, want 429 %q", st, body, errBanned)
	}
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, s := range l {
		out[i], _ = s.(string)
	}
	return out
}

// TestAdminSession: the login form sets an HttpOnly SameSite=Strict
// cookie; with it an action needs the session's CSRF token; a cross-site
// login post is refused; logout ends the session.
func TestAdminSession(t *testing.T) {
	a := startGame(t, "session", "dm")
	_, ts := startWeb(t, Options{AdminToken: testToken}, a)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if st, _ := post(t, c, ts.URL+"/admin/login", url.Values{"token": {testToken}}, map[string]string{"Origin": "http://evil.example"}); st != http.StatusForbidden {
		t.Errorf("cross-origin login: %d", st)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/admin/login", strings.NewReader(url.Values{"token": {testToken}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sc := resp.Header.Get("Set-Cookie")
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Strict") {
		t.Fatalf("login: %d %q", resp.StatusCode, sc)
	}
	var sess struct{ CSRF string }
	if st := getJSON(t, c, ts.URL+"/admin/api/session", &sess); st != 200 || len(sess.CSRF) != 64 {
		t.Fatalf("session: %d %+v", st, sess)
	}
	u := ts.URL + "/admin/api/action"
	say := url.Values{"action": {"say"}, "text": {"from the admin page"}}
	if st, _ := post(t, c, u, say, nil); st != http.StatusForbidden {
		t.Errorf("cookie without CSRF token: %d", st)
	}
	if st, _ := post(t, c, u, say, map[string]string{"X-CSRF-Token": sess.CSRF, "Origin": "http://evil.example"}); st != http.StatusForbidden {
		t.Errorf("cross-origin with CSRF token: %d", st)
	}
	if st, out := post(t, c, u, say, map[string]string{"X-CSRF-Token": sess.CSRF}); st != 200 || out["line"] != `say "from the admin page"` {
		t.Errorf("cookie with CSRF token: %d %v", st, out)
	}
	if st, _ := post(t, c, ts.URL+"/admin/logout", nil, map[string]string{"X-CSRF-Token": sess.CSRF}); st != http.StatusNoContent {
		t.Errorf("logout: %d", st)
	}
	if st, _ := post(t, c, u, say, map[string]string{"X-CSRF-Token": sess.CSRF}); st != http.StatusUnauthorized {
		t.Errorf("after logout: %d", st)
	}
}

// TestAdminOff: without a token there is no admin page; /admin says why
// (before, a bare "404 page not found", while the start's log line listed
// /admin among the pages served).
func TestAdminOff(t *testing.T) {
	a := startGame(t, "noadmin", "dm")
	_, ts := startWeb(t, Options{}, a)
	resp, err := ts.Client().Get(ts.URL + "/admin")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(body), "web.admin_token is not set") {
		t.Errorf("/admin: %d %q, want 404 naming web.admin_token", resp.StatusCode, body)
	}
	for _, o := range []Options{{}, {AdminToken: testToken}} {
		var buf bytes.Buffer
		o.Log = zerolog.New(&buf)
		h, err := New([]Game{{Port: int(a.Addr().Port()), Server: a}}, o)
		if err != nil {
			t.Fatal(err)
		}
		h.logListening("127.0.0.1:8080")
		if lists := strings.Contains(buf.String(), "/admin)"); lists != (o.AdminToken != "") {
			t.Errorf("token %q: the listening line %q lists /admin: %v", o.AdminToken, buf.String(), lists)
		}
	}
	if st, _ := post(t, ts.Client(), ts.URL+"/admin/api/action", url.Values{"action": {"vote_cancel"}}, map[string]string{"Authorization": "Bearer x"}); st != 404 {
		t.Errorf("action: %d", st)
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:80": true, "[::1]:80": true, "0.0.0.0:80": false, "192.168.1.2:80": false, "x": false} {
		if Loopback(addr) != want {
			t.Errorf("Loopback(%q) != %v", addr, want)
		}
	}
}

// TestWarnExposed: a non-loopback address logs a warning naming what it
// exposes: without a token the page (and public recordings), with one the
// token in clear; a loopback address logs nothing.
func TestWarnExposed(t *testing.T) {
	a := startGame(t, "exposed", "dm")
	for _, tt := range []struct {
		o    Options
		addr string
		want string // "" = no line
	}{
		{Options{}, "127.0.0.1:8080", ""},
		{Options{Recordings: RecordingsPublic, PublicChat: true}, "[::1]:8080", ""},
		{Options{}, "0.0.0.0:8080", "without web.admin_token: no admin page"},
		{Options{Recordings: RecordingsPublic, PublicChat: true}, "0.0.0.0:8080", "without web.admin_token: anyone who reaches it downloads every finished recording"},
		{Options{AdminToken: testToken}, "192.0.2.1:8080", "token and session travel in clear"},
		{Options{AdminToken: testToken, Recordings: RecordingsPublic, PublicChat: true}, "192.0.2.1:8080", "with public recordings"},
	} {
		var buf bytes.Buffer
		tt.o.Log = zerolog.New(&buf)
		h, err := New([]Game{{Port: int(a.Addr().Port()), Server: a}}, tt.o)
		if err != nil {
			t.Fatal(err)
		}
		h.warnExposed(tt.addr)
		got := buf.String()
		if tt.want == "" && got != "" || tt.want != "" && (!strings.Contains(got, tt.want) || !strings.Contains(got, `"level":"warn"`)) {
			t.Errorf("%s %+v: logged %q, want %q", tt.addr, tt.o.Recordings, got, tt.want)
		}
	}
}

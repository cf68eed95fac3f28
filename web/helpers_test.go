package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"twserver/config"
	"twserver/gamemsg"
	"twserver/internal/servertest"
	"twserver/loadclient"
	"twserver/server"
)

// testToken is the admin token of the tests.
const testToken = "test-token-0123456789"

// startGame runs a real server on a loopback port until the test ends.
func startGame(t *testing.T, name, gametype string, setup ...func(*server.Server)) *server.Server {
	t.Helper()
	cfg := config.Default()
	cfg.Server.Bind = "127.0.0.1"
	cfg.Server.Port = 0
	cfg.Server.Name = name
	cfg.Game.Type = gametype
	cfg.Game.SpamProtection = false
	return servertest.StartServer(t, cfg, setup...)
}

// startWeb serves the web handler of srvs on a loopback httptest server.
func startWeb(t *testing.T, o Options, srvs ...*server.Server) (*Handler, *httptest.Server) {
	t.Helper()
	games := make([]Game, len(srvs))
	for i, s := range srvs {
		games[i] = Game{Port: int(s.Addr().Port()), Server: s}
	}
	return startWebGames(t, o, games...)
}

// startWebGames serves the web handler of games on a loopback httptest server.
func startWebGames(t *testing.T, o Options, games ...Game) (*Handler, *httptest.Server) {
	t.Helper()
	h, err := New(games, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go h.Run(ctx)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { cancel(); ts.CloseClientConnections(); ts.Close() })
	return h, ts
}

// bots are synthetic clients in a game until the test ends.
type bots struct {
	mu      sync.Mutex
	clients []*loadclient.Client
}

// join starts a client named name and waits until it is in game.
func (b *bots) join(t *testing.T, srv *server.Server, name string, p loadclient.Pattern) *loadclient.Client {
	t.Helper()
	cl := loadclient.New(loadclient.Config{Server: srv.Addr(), Name: name, Pattern: p, Seed: uint64(len(name))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { cl.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for !cl.Entered() {
		if time.Now().After(deadline) {
			t.Fatalf("client %q did not enter the game", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.mu.Lock()
	b.clients = append(b.clients, cl)
	b.mu.Unlock()
	return cl
}

// say sends a public chat line.
func say(t *testing.T, cl *loadclient.Client, text string) {
	t.Helper()
	if !cl.Send(&gamemsg.ClSay{Mode: 1, Target: -1, Message: text}) {
		t.Fatal("chat line not sent")
	}
}

// login posts the admin token to ts's login form and returns the session
// cookie as a Cookie header value.
func login(t *testing.T, ts *httptest.Server) string {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(ts.URL+"/admin/login", url.Values{"token": {testToken}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == CookieName && ck.Value != "" {
			return ck.Name + "=" + ck.Value
		}
	}
	t.Fatalf("login: %d, no session cookie", resp.StatusCode)
	return ""
}

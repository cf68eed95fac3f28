package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"twserver/internal/refserver"
)

// TestClientAddr: the forwarded headers are believed only from a trusted
// peer; the client is the right-most untrusted X-Forwarded-For address,
// whatever a client prepends; scheme and host come from the proxy.
func TestClientAddr(t *testing.T) {
	h := &Handler{opt: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.9.0.0/16")}}}
	for _, tt := range []struct {
		peer, xff, proto, host string
		want, scheme, wantHost string
	}{
		{"192.0.2.7:5000", "203.0.113.1", "https", "evil.example", "192.0.2.7", "http", "page:8080"}, // untrusted peer: all ignored
		{"127.0.0.1:5000", "", "", "", "127.0.0.1", "http", "page:8080"},
		{"127.0.0.1:5000", "203.0.113.1", "https", "game.example", "203.0.113.1", "https", "game.example"},
		{"127.0.0.1:5000", "198.51.100.9, 203.0.113.1", "HTTPS", "game.example:8443", "203.0.113.1", "https", "game.example:8443"},
		{"127.0.0.1:5000", "203.0.113.1, 10.9.1.1", "http", "", "203.0.113.1", "http", "page:8080"}, // a second trusted hop
		{"[::ffff:127.0.0.1]:5000", "2001:db8::1", "ftp", "a b", "2001:db8::1", "http", "page:8080"},
		{"127.0.0.1:5000", "junk, 203.0.113.1", "", "x/y", "203.0.113.1", "http", "page:8080"},
		{"127.0.0.1:5000", "203.0.113.1, junk", "", "", "127.0.0.1", "http", "page:8080"}, // the proxy's own entry is bad
		{"127.0.0.1:5000", "10.9.0.1, 10.9.0.2", "", "", "10.9.0.1", "http", "page:8080"}, // all trusted: the left-most
		{"127.0.0.1:5000", "[2001:db8::2]:443", "", "", "2001:db8::2", "http", "page:8080"},
	} {
		r := httptest.NewRequest("GET", "http://page:8080/", nil)
		r.RemoteAddr = tt.peer
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		if tt.proto != "" {
			r.Header.Set("X-Forwarded-Proto", tt.proto)
		}
		if tt.host != "" {
			r.Header.Set("X-Forwarded-Host", tt.host)
		}
		scheme, host := h.origin(r)
		if got := h.clientAddr(r); got.String() != tt.want || scheme != tt.scheme || host != tt.wantHost {
			t.Errorf("%s %q %q %q: %s %s %s, want %s %s %s", tt.peer, tt.xff, tt.proto, tt.host, got, scheme, host, tt.want, tt.scheme, tt.wantHost)
		}
	}
	// two header lines: the last line's right-most entry counts
	r := httptest.NewRequest("GET", "http://page/", nil)
	r.RemoteAddr = "127.0.0.1:1"
	r.Header.Add("X-Forwarded-For", "203.0.113.5")
	r.Header.Add("X-Forwarded-For", "203.0.113.6")
	if got := h.clientAddr(r); got.String() != "203.0.113.6" {
		t.Errorf("two lines: %s", got)
	}
	// more hops than MaxForwardedHops: the last trusted one read
	r.Header.Set("X-Forwarded-For", "203.0.113.1"+strings.Repeat(", 10.9.0.3", MaxForwardedHops))
	if got := h.clientAddr(r); got.String() != "10.9.0.3" {
		t.Errorf("%d trusted hops: %s", MaxForwardedHops, got)
	}
}

// TestSameOrigin: Origin must be the scheme and host the client asked
// for, forwarded by a trusted proxy (from another peer its Host with
// either scheme); Sec-Fetch-Site of another site and
// "null" are refused; no header at all is not a browser page.
func TestSameOrigin(t *testing.T) {
	h := &Handler{opt: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}
	for _, tt := range []struct {
		peer, origin, site, proto, host string
		want                            bool
	}{
		{"192.0.2.1:1", "", "", "", "", true},
		{"192.0.2.1:1", "http://page:8080", "same-origin", "", "", true},
		{"192.0.2.1:1", "http://PAGE:8080", "", "", "", true},
		{"192.0.2.1:1", "https://page:8080", "", "", "", true}, // a TLS proxy that keeps Host, not named
		{"192.0.2.1:1", "http://evil.example", "", "", "", false},
		{"192.0.2.1:1", "null", "", "", "", false},
		{"192.0.2.1:1", "", "cross-site", "", "", false},
		{"192.0.2.1:1", "", "same-site", "", "", false},
		{"192.0.2.1:1", "", "none", "", "", true},
		{"192.0.2.1:1", "https://game.example", "", "https", "game.example", false}, // untrusted peer's headers
		{"127.0.0.1:1", "https://game.example", "", "https", "game.example", true},
		{"127.0.0.1:1", "http://game.example", "", "https", "game.example", false}, // a trusted proxy's scheme is exact
		{"127.0.0.1:1", "http://page:8080", "", "https", "", false},
		{"127.0.0.1:1", "https://page:8080", "", "https", "", true}, // the proxy kept Host
		{"127.0.0.1:1", "https://evil.example", "same-origin", "https", "game.example", false},
	} {
		r := httptest.NewRequest("POST", "http://page:8080/admin/login", nil)
		r.RemoteAddr = tt.peer
		for k, v := range map[string]string{"Origin": tt.origin, "Sec-Fetch-Site": tt.site, "X-Forwarded-Proto": tt.proto, "X-Forwarded-Host": tt.host} {
			if v != "" {
				r.Header.Set(k, v)
			}
		}
		if got := h.sameOrigin(r); got != tt.want {
			t.Errorf("%+v: %v", tt, got)
		}
	}
}

// TestLoginLimit: parallel wrong tokens from one client are counted
// before the compare: at most MaxLoginTries are compared (and logged) and
// the client is banned, even for the right token; clients are told apart
// by the forwarded address from a trusted proxy (IPv4 address, IPv6 /64),
// and without the trust every forwarded client is the proxy.
func TestLoginLimit(t *testing.T) {
	a := startGame(t, "limit", "dm")
	var logs refserver.Buffer // safe from several handler goroutines
	trust := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	_, ts := startWeb(t, Options{AdminToken: testToken, TrustedProxies: trust, Log: zerolog.New(&logs)}, a)
	c := ts.Client()
	u := ts.URL + "/admin/api/action"
	status := url.Values{"action": {"command"}, "line": {"status"}}
	try := func(from, token string) int {
		st, _ := post(t, c, u, status, map[string]string{"Authorization": "Bearer " + token, "X-Forwarded-For": from})
		return st
	}
	if st := try("203.0.113.1", testToken); st != 200 {
		t.Fatalf("right token before any wrong one: %d", st)
	}
	const parallel = 40
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() { try("203.0.113.1", "wrong-token-0123456789") })
	}
	wg.Wait()
	if n := strings.Count(logs.String(), `"message":"admin login refused"`); n != MaxLoginTries {
		t.Errorf("%d parallel wrong tokens: %d compared and refused, want %d", parallel, n, MaxLoginTries)
	}
	if !strings.Contains(logs.String(), `"addr":"203.0.113.1"`) || !strings.Contains(logs.String(), `"banned":true`) {
		t.Errorf("the refusals do not name the forwarded client and its ban:\n%s", logs.String())
	}
	if st := try("203.0.113.1", testToken); st != http.StatusTooManyRequests {
		t.Errorf("banned client with the right token: %d", st)
	}
	if st := try("203.0.113.2", testToken); st != 200 {
		t.Errorf("another client behind the proxy: %d", st)
	}
	if st := try("198.51.100.1, 203.0.113.1", testToken); st != http.StatusTooManyRequests {
		t.Errorf("banned client prepending an address: %d", st)
	}
	// IPv6: one /64 is one client
	for range MaxLoginTries {
		try("2001:db8:0:1::1", "wrong-token-0123456789")
	}
	if st := try("2001:db8:0:1::ffff", testToken); st != http.StatusTooManyRequests {
		t.Errorf("same /64 after %d wrong tokens: %d", MaxLoginTries, st)
	}
	if st := try("2001:db8:0:2::1", testToken); st != 200 {
		t.Errorf("another /64: %d", st)
	}
	// a right token takes back only its own attempt: two wrong ones, then
	// the right one as the third attempt passes and keeps passing, but a
	// third wrong one bans
	w := "wrong-token-0123456789"
	for i, step := range []struct {
		tok  string
		want int
	}{{w, 401}, {w, 401}, {testToken, 200}, {testToken, 200}, {w, 401}, {testToken, http.StatusTooManyRequests}} {
		if st := try("203.0.113.9", step.tok); st != step.want {
			t.Errorf("step %d (right %v): %d, want %d", i, step.tok == testToken, st, step.want)
		}
	}

	// without the trust the forwarded address is ignored: the proxy is the client
	_, plain := startWeb(t, Options{AdminToken: testToken}, a)
	for range MaxLoginTries {
		post(t, plain.Client(), plain.URL+"/admin/api/action", status, map[string]string{"Authorization": "Bearer wrong", "X-Forwarded-For": "203.0.113.1"})
	}
	if st, _ := post(t, plain.Client(), plain.URL+"/admin/api/action", status, map[string]string{"Authorization": "Bearer " + testToken, "X-Forwarded-For": "203.0.113.2"}); st != http.StatusTooManyRequests {
		t.Errorf("untrusted peer: another forwarded client not banned with the peer: %d", st)
	}
}

// TestLogout: logout needs the session cookie, its CSRF token and a
// same-origin request, like every action; then the session ends.
func TestLogout(t *testing.T) {
	a := startGame(t, "logout", "dm")
	_, ts := startWeb(t, Options{AdminToken: testToken}, a)
	cookie := login(t, ts)
	c := ts.Client()
	var sess struct{ CSRF string }
	req, _ := http.NewRequest("GET", ts.URL+"/admin/api/session", nil)
	req.Header.Set("Cookie", cookie)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&sess)
	resp.Body.Close()
	if err != nil || len(sess.CSRF) != 64 {
		t.Fatalf("session: %v %+v", err, sess)
	}
	out := ts.URL + "/admin/logout"
	wrong := sess.CSRF[:63] + "0" // the token with its last digit changed
	if sess.CSRF[63] == '0' {
		wrong = sess.CSRF[:63] + "1"
	}
	for _, hdr := range []map[string]string{
		{"Cookie": cookie},
		{"Cookie": cookie, "X-CSRF-Token": wrong},
		{"Cookie": cookie, "X-CSRF-Token": sess.CSRF, "Origin": "http://evil.example"},
		{"Cookie": cookie, "X-CSRF-Token": sess.CSRF, "Sec-Fetch-Site": "cross-site"},
		{"X-CSRF-Token": sess.CSRF},
	} {
		if st, _ := post(t, c, out, nil, hdr); st != http.StatusForbidden {
			t.Errorf("logout with %v: %d, want 403", hdr, st)
		}
	}
	act := url.Values{"action": {"command"}, "line": {"status"}}
	if st, _ := post(t, c, ts.URL+"/admin/api/action", act, map[string]string{"Cookie": cookie, "X-CSRF-Token": sess.CSRF}); st != 200 {
		t.Fatalf("session after refused logouts: %d", st)
	}
	if st, _ := post(t, c, out, nil, map[string]string{"Cookie": cookie, "X-CSRF-Token": sess.CSRF, "Origin": ts.URL}); st != http.StatusNoContent {
		t.Errorf("logout: %d", st)
	}
	if st, _ := post(t, c, ts.URL+"/admin/api/action", act, map[string]string{"Cookie": cookie, "X-CSRF-Token": sess.CSRF}); st != http.StatusUnauthorized {
		t.Errorf("after logout: %d", st)
	}
}

// FuzzForwarded: any forwarded headers from a trusted or untrusted peer
// give an address that is the peer or one written in X-Forwarded-For
// (never one from an untrusted peer's headers), a scheme of http or
// https, and a host that is r.Host or a valid forwarded one.
func FuzzForwarded(f *testing.F) {
	f.Add(true, "203.0.113.1", "https", "game.example")
	f.Add(true, "junk, 10.0.0.1 , [2001:db8::1]:80,,", "HTTP, https", "a:1, b:2")
	f.Add(false, "203.0.113.1", "https", "evil.example")
	f.Add(true, strings.Repeat("127.0.0.1,", 40), "", "x/y")
	h := &Handler{opt: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}}
	f.Fuzz(func(t *testing.T, trustedPeer bool, xff, proto, host string) {
		r := httptest.NewRequest("GET", "http://page/", nil)
		r.RemoteAddr = "192.0.2.1:1"
		if trustedPeer {
			r.RemoteAddr = "127.0.0.1:1"
		}
		r.Header["X-Forwarded-For"] = []string{xff}
		r.Header["X-Forwarded-Proto"] = []string{proto}
		r.Header["X-Forwarded-Host"] = []string{host}
		a, peer := h.clientAddr(r), peerAddr(r)
		if a != peer {
			found := false
			for _, part := range strings.Split(xff, ",") {
				if b, ok := forwardedAddr(strings.TrimSpace(part)); ok && b == a {
					found = true
				}
			}
			if !trustedPeer || !found {
				t.Fatalf("client %v is neither the peer %v nor in %q (trusted peer %v)", a, peer, xff, trustedPeer)
			}
		}
		scheme, hst := h.origin(r)
		if scheme != "http" && scheme != "https" || hst != r.Host && !validHost(hst) {
			t.Fatalf("origin %q %q", scheme, hst)
		}
		if !trustedPeer && (a != peer || scheme != "http" || hst != r.Host) {
			t.Fatalf("untrusted peer's headers believed: %v %s %s", a, scheme, hst)
		}
	})
}

package web

import (
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// TestHostOK: IP addresses, localhost and the configured names are hosts
// of the admin page, with or without a port and in any case; other names
// are not (nameOK of bareHost, as adminHostOK checks a request's host).
func TestHostOK(t *testing.T) {
	names := []string{"game.example.org", "Box."}
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.1", true},
		{"[::1]:8080", true},
		{"[2001:db8::1]", true},
		{"192.168.1.20:80", true},
		{"localhost:8080", true},
		{"LOCALHOST", true},
		{"admin.localhost:8080", true},
		{"game.example.org", true},
		{"GAME.example.org.:443", true},
		{"box:8080", true},
		{"evil.example:8080", false},
		{"game.example.org.evil.example", false},
		{"localhost.evil.example", false},
		{"box.evil", false},
		{"", false},
		{":8080", false},
	} {
		if got := nameOK(bareHost(tc.host), names); got != tc.ok {
			t.Errorf("nameOK(bareHost(%q)) = %v, want %v", tc.host, got, tc.ok)
		}
	}
}

// adminReq sends an admin request under host, with X-Forwarded-Host fwd
// unless empty; it returns the status and the error text.
func adminReq(t *testing.T, c *http.Client, method, u, host, fwd string, form url.Values, hdr map[string]string) (int, string) {
	t.Helper()
	if fwd != "" {
		hdr = maps.Clone(hdr)
		if hdr == nil {
			hdr = map[string]string{}
		}
		hdr["X-Forwarded-Host"] = fwd
	}
	st, out := request(t, c, method, u, host, form, hdr)
	msg, _ := out["error"].(string)
	return st, msg
}

// TestAdminHostRebinding: a page of another site whose name points at
// the server (DNS rebinding: same-origin to the browser, Host and Origin
// its own name) cannot spend the admin's login tries. Its logins, bearer
// tokens and page loads are refused with 403 naming web.admin_hosts and
// the name to add (without its port), and
// after many of them the right token from the same address still logs
// in. Under a name of web.admin_hosts (directly or forwarded by a trusted
// proxy) wrong tokens count as before: the third bans the address.
// Without the check in login, the rebinding page's tries ban the address
// and the admin's right token gets 429.
func TestAdminHostRebinding(t *testing.T) {
	a := startGame(t, "adminhost", "dm")
	_, ts := startWebGames(t, Options{AdminToken: testToken, AdminHosts: []string{"game.example.org"}},
		Game{Port: int(a.Addr().Port()), Server: a, RecordDir: t.TempDir()}) // the viewer is mounted
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	evil := "evil.example:" + ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	same := map[string]string{"Origin": "http://" + evil, "Sec-Fetch-Site": "same-origin"}
	wrong := url.Values{"token": {"wrong-token-guess"}}
	for i := range 3 * MaxLoginTries {
		st, msg := adminReq(t, c, "POST", ts.URL+"/admin/login", evil, "", wrong, same)
		if st != http.StatusForbidden || !strings.Contains(msg, "web.admin_hosts") || !strings.Contains(msg, `"evil.example"`) {
			t.Fatalf("login %d under another site's name: %d %q, want 403 naming web.admin_hosts", i, st, msg)
		}
		hdr := map[string]string{"Authorization": "Bearer wrong-token-guess"}
		if st, _ := adminReq(t, c, "POST", ts.URL+"/admin/api/action", evil, "", url.Values{"action": {"vote_cancel"}}, hdr); st != http.StatusForbidden {
			t.Fatalf("action %d under another site's name: %d, want 403", i, st)
		}
		// the viewer reads a bearer token too; under another name it counts for nothing
		if st, _ := adminReq(t, c, "GET", ts.URL+"/watch/x.demo/info", evil, "", nil, hdr); st == http.StatusTooManyRequests {
			t.Fatalf("watch %d under another site's name: banned", i)
		}
	}
	if st, _ := adminReq(t, c, "GET", ts.URL+"/admin", evil, "", nil, nil); st != http.StatusForbidden {
		t.Errorf("admin page under another site's name: %d, want 403", st)
	}
	if st, _ := adminReq(t, c, "GET", ts.URL+"/", evil, "", nil, nil); st != http.StatusOK {
		t.Errorf("public page under another name: %d, want 200 (only the admin page is checked)", st)
	}
	// the admin, at the same address, logs in by IP address and by the configured name
	for _, host := range []string{strings.TrimPrefix(ts.URL, "http://"), "GAME.example.org"} {
		st, _ := adminReq(t, c, "POST", ts.URL+"/admin/login", host, "", url.Values{"token": {testToken}}, nil)
		if st != http.StatusSeeOther {
			t.Fatalf("right token under %q after the rebinding page's tries: %d, want 303", host, st)
		}
	}
	// under the configured name wrong tokens count: the third bans
	for i := range MaxLoginTries {
		if st, _ := adminReq(t, c, "POST", ts.URL+"/admin/login", "game.example.org", "", wrong, nil); st == http.StatusForbidden {
			t.Fatalf("wrong token %d under a configured name: 403", i)
		}
	}
	if st, _ := adminReq(t, c, "POST", ts.URL+"/admin/login", "game.example.org", "", url.Values{"token": {testToken}}, nil); st != http.StatusTooManyRequests {
		t.Errorf("after %d wrong tokens under a configured name: %d, want 429", MaxLoginTries, st)
	}
}

// TestAdminHostForwarded: behind a trusted proxy the host checked is the
// forwarded one: another site's name is refused, the configured name and
// a proxy that rewrites Host to its upstream's address are served.
func TestAdminHostForwarded(t *testing.T) {
	a := startGame(t, "adminhostfwd", "dm")
	_, ts := startWeb(t, Options{AdminToken: testToken, AdminHosts: []string{"game.example.org"},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}, a)
	c := ts.Client()
	up := strings.TrimPrefix(ts.URL, "http://")
	for _, tc := range []struct {
		host, fwd string
		want      int
	}{
		{up, "evil.example", http.StatusForbidden},
		{"game.example.org", "evil.example", http.StatusForbidden},
		{up, "game.example.org", http.StatusOK},
		{up, "", http.StatusOK},
	} {
		if st, msg := adminReq(t, c, "GET", ts.URL+"/admin", tc.host, tc.fwd, nil, nil); st != tc.want {
			t.Errorf("Host %q, X-Forwarded-Host %q: %d %q, want %d", tc.host, tc.fwd, st, msg, tc.want)
		}
	}
}

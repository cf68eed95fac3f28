package web

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/console"
	"twserver/internal/refserver"
	"twserver/internal/testenv"
	"twserver/internal/testport"
	"twserver/server"
)

// nginxRunFor bounds the nginx child process of a test.
const nginxRunFor = 60 * time.Second

// selfSigned writes a self-signed TLS certificate for 127.0.0.1 and
// localhost (ECDSA P-256, valid for an hour) to dir and returns the paths
// of the certificate and the key, and a pool that trusts it.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "twserver test proxy"},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// startNginx runs nginx (one process, no daemon, its files in a temp
// dir) as a TLS reverse proxy on 127.0.0.1: each listen port forwards to
// its upstream ("127.0.0.1:PORT") with the headers docs/web-api.md tells
// operators to set; Host is left to nginx's default (the upstream's
// address), as a proxy that rewrites Host does. It returns the pool that
// trusts its certificate; nginx stops when the test ends or after
// nginxRunFor.
func startNginx(t *testing.T, routes map[int]string) *x509.CertPool {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin = "/usr/sbin/nginx" // not on a user's PATH
		_, err = os.Stat(bin)
	}
	testenv.Require(t, "nginx (Debian package nginx)", err)
	dir := t.TempDir()
	cert, key, pool := selfSigned(t, dir)
	var servers strings.Builder
	for port, upstream := range routes {
		fmt.Fprintf(&servers, `
  server {
    listen 127.0.0.1:%d ssl;
    ssl_certificate %s;
    ssl_certificate_key %s;
    location / {
      proxy_pass http://%s;
      proxy_http_version 1.1;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_buffering off;
    }
  }`, port, cert, key, upstream)
	}
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
%[2]s
}
`, dir, servers.String())
	confFile := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confFile, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), nginxRunFor)
	cmd := exec.CommandContext(ctx, bin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", confFile)
	var out refserver.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cancel()
		<-exited
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx output: %s\nerror.log: %s", out.String(), log)
		}
	})
	for port := range routes {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				c.Close()
				break
			}
			select {
			case <-exited:
				log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
				t.Fatalf("nginx exited: %s %s", out.String(), log)
			default:
			}
			if time.Now().After(end) {
				t.Fatalf("nginx does not listen on %s", addr)
			}
		}
	}
	return pool
}

// clientFrom is an HTTPS client that connects from the loopback address
// src, trusts pool and follows no redirect.
func clientFrom(src string, pool *x509.CertPool) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return &http.Client{
		Timeout:       10 * time.Second,
		Transport:     &http.Transport{DialContext: d.DialContext, TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// proxyLogin posts token to the login form at base (as a browser page of
// base would, with its Origin) and returns the status, where it
// redirects and the session cookie (nil when none).
func proxyLogin(t *testing.T, c *http.Client, base, token string) (int, string, *http.Cookie) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/admin/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == CookieName && ck.Value != "" {
			return resp.StatusCode, resp.Header.Get("Location"), ck
		}
	}
	return resp.StatusCode, resp.Header.Get("Location"), nil
}

// TestBehindNginx puts a real nginx with a self-signed certificate in
// front of the page. With trusted_proxies naming nginx's address, login
// works over https, the cookie is Secure, an action and logout pass the
// origin check although nginx rewrites Host, three wrong tokens from one
// client (127.0.0.2) ban that client but not another (127.0.0.3), and the
// log lines name the forwarded addresses. The control: the same page
// without trusted_proxies behind the same nginx sees every client as
// nginx, so the three wrong tokens lock the other client out, the cookie
// is not Secure, and the login from https is refused as cross-origin.
func TestBehindNginx(t *testing.T) {
	var mu sync.Mutex
	var econ []string
	a := startGame(t, "proxied", "dm", func(s *server.Server) {
		s.OnConsoleLine(console.LevelAddInfo, func(l console.Line) {
			mu.Lock()
			econ = append(econ, l.Text)
			mu.Unlock()
		})
	})
	var logs, plainLogs refserver.Buffer
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	_, ts := startWeb(t, Options{AdminToken: testToken, TrustedProxies: trusted, Log: zerolog.New(&logs)}, a)
	_, plain := startWeb(t, Options{AdminToken: testToken, Log: zerolog.New(&plainLogs)}, a)
	port, plainPort := testport.Pick(t), testport.Pick(t)
	for plainPort == port {
		plainPort = testport.Pick(t)
	}
	start := time.Now()
	pool := startNginx(t, map[int]string{port: ts.Listener.Addr().String(), plainPort: plain.Listener.Addr().String()})
	t.Logf("nginx up in %v", time.Since(start))
	base := "https://127.0.0.1:" + strconv.Itoa(port)
	mallory, alice := clientFrom("127.0.0.2", pool), clientFrom("127.0.0.3", pool)

	for i := range MaxLoginTries {
		if st, loc, ck := proxyLogin(t, mallory, base, "wrong-token-0123456789"); st != http.StatusSeeOther || loc != "/admin?failed=1" || ck != nil {
			t.Fatalf("wrong token %d: %d %q %v", i+1, st, loc, ck)
		}
	}
	if st, _, ck := proxyLogin(t, mallory, base, testToken); st != http.StatusTooManyRequests || ck != nil {
		t.Errorf("banned client with the right token: %d %v", st, ck)
	}
	st, loc, ck := proxyLogin(t, alice, base, testToken)
	if st != http.StatusSeeOther || loc != "/admin" || ck == nil {
		t.Fatalf("another client's login: %d %q %v", st, loc, ck)
	}
	if !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" {
		t.Errorf("session cookie over https: %+v", ck)
	}
	get := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.AddCookie(ck)
		resp, err := alice.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := get("/admin"); st != 200 || !strings.Contains(body, "admin.js") {
		t.Errorf("admin page with the cookie: %d", st)
	}
	var sess struct{ CSRF string }
	if st, body := get("/admin/api/session"); st != 200 || json.Unmarshal([]byte(body), &sess) != nil || len(sess.CSRF) != 64 {
		t.Fatalf("session: %d %s", st, body)
	}
	send := func(path string, form url.Values) int {
		st, _ := post(t, alice, base+path, form, map[string]string{"Origin": base, "X-CSRF-Token": sess.CSRF, "Cookie": ck.Name + "=" + ck.Value})
		return st
	}
	if st := send("/admin/api/action", url.Values{"action": {"say"}, "text": {"through the proxy"}}); st != 200 {
		t.Errorf("action through the proxy: %d", st)
	}
	if st := send("/admin/logout", nil); st != http.StatusNoContent {
		t.Errorf("logout through the proxy: %d", st)
	}
	if st, _ := get("/admin/api/session"); st != http.StatusUnauthorized {
		t.Errorf("session after logout: %d", st)
	}
	l := logs.String()
	if n := strings.Count(l, `"addr":"127.0.0.2","peer":"127.0.0.1:`); n != MaxLoginTries || !strings.Contains(l, `"banned":true`) {
		t.Errorf("%d refused logins name the forwarded client 127.0.0.2 (want %d), with its ban:\n%s", n, MaxLoginTries, l)
	}
	if !strings.Contains(l, `"addr":"127.0.0.3","peer":"127.0.0.1:`) || !strings.Contains(l, `"admin logged in"`) {
		t.Errorf("the login does not name the forwarded client 127.0.0.3:\n%s", l)
	}
	mu.Lock()
	audit := strings.Join(econ, "\n")
	mu.Unlock()
	if !strings.Contains(audit, `admin='web:127.0.0.3' rcon='say "through the proxy"' result='ok'`) {
		t.Errorf("the action's audit line does not name 127.0.0.3:\n%s", audit)
	}

	// the control: without trusted_proxies every client is nginx
	pbase := "https://127.0.0.1:" + strconv.Itoa(plainPort)
	if st, _, ck := proxyLogin(t, alice, pbase, testToken); st != http.StatusForbidden || ck != nil {
		t.Errorf("untrusted proxy: a browser login (Origin https, Host rewritten): %d, want 403", st)
	}
	bearer := func(c *http.Client, token string) int {
		st, _ := post(t, c, pbase+"/admin/api/action", url.Values{"action": {"command"}, "line": {"status"}}, map[string]string{"Authorization": "Bearer " + token})
		return st
	}
	if st := bearer(alice, testToken); st != 200 {
		t.Fatalf("untrusted proxy: the token before the wrong ones: %d", st)
	}
	for range MaxLoginTries {
		bearer(mallory, "wrong-token-0123456789")
	}
	if st := bearer(alice, testToken); st != http.StatusTooManyRequests {
		t.Errorf("untrusted proxy: the other client after three wrong tokens: %d, want 429 (locked out with nginx)", st)
	}
	if !strings.Contains(plainLogs.String(), `"addr":"127.0.0.1"`) {
		t.Errorf("untrusted proxy: the refusals do not name nginx's address:\n%s", plainLogs.String())
	}
	t.Logf("whole test %v", time.Since(start))
}

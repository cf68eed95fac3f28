package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// The admin page: whoever presents the token (the Authorization header
// "Bearer TOKEN", or once in the login form, which sets a session cookie:
// HttpOnly, SameSite=Strict, Path=/admin) may run console lines. A
// cookie-authenticated action must also carry the session's CSRF token in
// the X-CSRF-Token header, which only a page of this origin can read.
// Wrong tokens are counted per address; MaxLoginTries wrong ones ban the
// address for LoginBanTime, like rcon's.

// Bounds of the admin page.
const (
	// MaxSessions bounds the open admin sessions (the oldest is dropped).
	MaxSessions = 32
	// SessionTTL is how long a session lasts.
	SessionTTL = 12 * time.Hour
	// MaxLoginTries is how many wrong tokens an address may send before
	// it is banned (sv_rcon_max_tries' default).
	MaxLoginTries = 3
	// LoginBanTime is how long such an address is banned (sv_rcon_bantime's default: 5 minutes).
	LoginBanTime = 5 * time.Minute
	// MaxLoginAddrs bounds the addresses whose wrong tokens are counted.
	MaxLoginAddrs = 1024
	// ActionTimeout bounds the wait for the game loop to run an action.
	ActionTimeout = 5 * time.Second
	// CookieName is the session cookie.
	CookieName = "twserver_admin"
)

// admin holds the token, the sessions and the failed logins.
type admin struct {
	token [32]byte // sha256 of the token (constant-time compared)
	now   func() time.Time

	mu       sync.Mutex
	sessions map[string]*session
	fails    map[netip.Addr]*loginFails
}

type session struct {
	csrf    string
	addr    string
	expires time.Time
}

type loginFails struct {
	n      int
	banned time.Time // zero: not banned
	last   time.Time
}

func newAdmin(token string, now func() time.Time) *admin {
	return &admin{token: sha256.Sum256([]byte(token)), now: now, sessions: map[string]*session{}, fails: map[netip.Addr]*loginFails{}}
}

// tokenOK compares a presented token with the admin token in constant time.
func (a *admin) tokenOK(given string) bool {
	g := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(g[:], a.token[:]) == 1
}

// clientAddr is the request's peer address.
func clientAddr(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, _ := netip.ParseAddr(host)
	return ip.Unmap()
}

// ErrBanned is the answer to a banned address.
const errBanned = "too many wrong tokens: banned for a while"

// banned reports whether ip may not try a token now.
func (a *admin) banned(ip netip.Addr) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.fails[ip]
	return f != nil && a.now().Before(f.banned)
}

// failed counts a wrong token of ip; it reports whether ip is now banned.
func (a *admin) failed(ip netip.Addr) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	f := a.fails[ip]
	if f == nil {
		if len(a.fails) >= MaxLoginAddrs {
			a.pruneFails(now)
		}
		f = &loginFails{}
		a.fails[ip] = f
	}
	if !f.banned.IsZero() && !now.Before(f.banned) {
		f.n, f.banned = 0, time.Time{} // the ban ran out
	}
	f.n++
	f.last = now
	if f.n >= MaxLoginTries {
		f.banned = now.Add(LoginBanTime)
		return true
	}
	return false
}

// pruneFails drops the counters of addresses not banned, then the oldest.
func (a *admin) pruneFails(now time.Time) {
	var oldest netip.Addr
	var at time.Time
	for ip, f := range a.fails {
		if !now.Before(f.banned) {
			delete(a.fails, ip)
			continue
		}
		if at.IsZero() || f.last.Before(at) {
			oldest, at = ip, f.last
		}
	}
	if len(a.fails) >= MaxLoginAddrs {
		delete(a.fails, oldest)
	}
}

// newSession opens a session and returns its id.
func (a *admin) newSession(addr string) (id string, s *session) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if len(a.sessions) >= MaxSessions {
		var oldest string
		var exp time.Time
		for k, v := range a.sessions {
			if exp.IsZero() || v.expires.Before(exp) {
				oldest, exp = k, v.expires
			}
		}
		delete(a.sessions, oldest)
	}
	s = &session{csrf: randomHex(), addr: addr, expires: now.Add(SessionTTL)}
	id = randomHex()
	a.sessions[id] = s
	return id, s
}

// session returns the live session of id (nil when none).
func (a *admin) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		return nil
	}
	if !a.now().Before(s.expires) {
		delete(a.sessions, id)
		return nil
	}
	return s
}

func (a *admin) endSession(id string) {
	a.mu.Lock()
	delete(a.sessions, id)
	a.mu.Unlock()
}

// randomHex is 32 random bytes in hexadecimal.
func randomHex() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// authKind says how a request is authenticated.
type authKind int

const (
	authNone authKind = iota
	authHeader
	authCookie
)

// auth checks the request's credentials: the bearer token (a wrong one
// counts as a failed login) or the session cookie.
func (h *Handler) auth(r *http.Request) (authKind, *session) {
	a := h.admin
	if v := r.Header.Get("Authorization"); v != "" {
		ip := clientAddr(r)
		tok, ok := strings.CutPrefix(v, "Bearer ")
		if !ok || a.banned(ip) {
			return authNone, nil
		}
		if !a.tokenOK(tok) {
			h.auditFail(r, "wrong token (header)", a.failed(ip))
			return authNone, nil
		}
		return authHeader, nil
	}
	if c, err := r.Cookie(CookieName); err == nil {
		if s := a.session(c.Value); s != nil {
			return authCookie, s
		}
	}
	return authNone, nil
}

// auditFail logs a refused admin login.
func (h *Handler) auditFail(r *http.Request, what string, banned bool) {
	h.opt.Log.Warn().Str("addr", r.RemoteAddr).Str("what", what).Bool("banned", banned).Msg("admin login refused")
}

func (h *Handler) adminPage(w http.ResponseWriter, r *http.Request) {
	if h.admin == nil {
		http.NotFound(w, r)
		return
	}
	name := "login.html"
	if k, _ := h.auth(r); k != authNone {
		name = "admin.html"
	}
	h.serveFile(name)(w, r)
}

func (h *Handler) adminLogin(w http.ResponseWriter, r *http.Request) {
	if h.admin == nil {
		http.NotFound(w, r)
		return
	}
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "cross-origin login refused")
		return
	}
	ip := clientAddr(r)
	if h.admin.banned(ip) {
		writeError(w, http.StatusTooManyRequests, errBanned)
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "bad form")
		return
	}
	if !h.admin.tokenOK(r.PostForm.Get("token")) {
		banned := h.admin.failed(ip)
		h.auditFail(r, "wrong token (login form)", banned)
		http.Redirect(w, r, "/admin?failed=1", http.StatusSeeOther)
		return
	}
	id, _ := h.admin.newSession(r.RemoteAddr)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: id, Path: "/admin", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: int(SessionTTL / time.Second)})
	h.opt.Log.Info().Str("addr", r.RemoteAddr).Msg("admin logged in")
	http.Redirect(w, r, "/admin", http.StatusSeeOther)
}

func (h *Handler) adminLogout(w http.ResponseWriter, r *http.Request) {
	if h.admin == nil {
		http.NotFound(w, r)
		return
	}
	k, s := h.auth(r)
	if k == authCookie && r.Header.Get("X-CSRF-Token") == s.csrf {
		c, _ := r.Cookie(CookieName)
		h.admin.endSession(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/admin", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	w.WriteHeader(http.StatusNoContent)
}

// warnExposed logs a warning when the page listens on a non-loopback
// address: without an admin token, that everything it serves is public
// (and, with public recordings, that anyone downloads them); with one,
// that the token travels in clear unless a TLS proxy is in front.
func (h *Handler) warnExposed(addr string) {
	if Loopback(addr) {
		return
	}
	public := h.opt.Recordings == RecordingsPublic
	ev := h.opt.Log.Warn().Str("addr", addr).Bool("public_recordings", public)
	var msg string
	switch {
	case h.admin == nil && public:
		msg = "web page on a non-loopback address without web.admin_token: anyone who reaches it downloads every finished recording (all chat sent to all, console lines with their arguments such as ban targets' addresses, player names and inputs)"
	case h.admin == nil:
		msg = "web page on a non-loopback address without web.admin_token: no admin page, and no recordings served (web.recordings = \"admin\" needs the admin login); the game's players and public chat are shown to anyone who reaches it"
	case public:
		msg = "web page on a non-loopback address with public recordings: anyone who reaches it downloads every finished recording (all chat sent to all, console lines with their arguments, player names and inputs); the admin token travels in clear without a TLS proxy in front"
	default:
		msg = "web admin page served without TLS on a non-loopback address: the token and session travel in clear; put a TLS proxy in front (web.trusted_proxies) or listen on 127.0.0.1"
	}
	ev.Msg(msg)
}

// adminOnly answers 404 without an admin page and 401 to a request
// without valid credentials (a wrong bearer token counts as a failed
// login); it reports whether r comes from an admin.
func (h *Handler) adminOnly(w http.ResponseWriter, r *http.Request) bool {
	if h.admin == nil {
		http.NotFound(w, r)
		return false
	}
	if k, _ := h.auth(r); k == authNone {
		writeError(w, http.StatusUnauthorized, "admin login required")
		return false
	}
	return true
}

// adminSession tells the page its CSRF token (readable only by this origin).
func (h *Handler) adminSession(w http.ResponseWriter, r *http.Request) {
	if h.admin == nil {
		http.NotFound(w, r)
		return
	}
	k, s := h.auth(r)
	if k != authCookie {
		writeError(w, http.StatusUnauthorized, "not logged in")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "csrf": s.csrf})
}

// sameOrigin refuses a browser's cross-site form post (Origin or
// Sec-Fetch-Site of another site); requests without either are not from a
// browser page.
func sameOrigin(r *http.Request) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		return o == "http://"+r.Host || o == "https://"+r.Host
	} else if o == "null" {
		return false
	}
	return true
}

func (h *Handler) adminAction(w http.ResponseWriter, r *http.Request) {
	if h.admin == nil {
		http.NotFound(w, r)
		return
	}
	k, s := h.auth(r)
	switch {
	case k == authNone:
		writeError(w, http.StatusUnauthorized, "admin token required")
		return
	case k == authCookie && (!sameOrigin(r) || subtle.ConstantTimeCompare([]byte(r.Header.Get("X-CSRF-Token")), []byte(s.csrf)) != 1):
		writeError(w, http.StatusForbidden, "missing or wrong CSRF token")
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "bad form")
		return
	}
	g := h.byPort[0]
	if p, err := parsePort(r.PostForm.Get("game")); err == nil {
		g = h.byPort[p]
	} else if len(h.games) == 1 && r.PostForm.Get("game") == "" {
		g = h.games[0]
	}
	if g == nil {
		writeError(w, http.StatusNotFound, "no such game")
		return
	}
	line, err := ActionLine(r.PostForm.Get("action"), r.PostForm)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	who := "web:" + clientAddr(r).String()
	if k == authHeader {
		who += " (token header)"
	}
	ctx, cancel := contextTimeout(r, ActionTimeout)
	defer cancel()
	out, err := g.Server.RunAdmin(ctx, who, line)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if out == nil {
		out = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "line": line, "output": out})
}

package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"twserver/internal/httpserve"
)

// The admin page: whoever presents the token (the Authorization header
// "Bearer TOKEN", or once in the login form, which sets a session cookie:
// HttpOnly, SameSite=Strict, Path=/) may run console lines. A
// cookie-authenticated action must also carry the session's CSRF token in
// the X-CSRF-Token header, which only a page of this origin can read.
// Attempts are counted per client (httpserve.AddrKey of clientAddr: an
// IPv4 address or an IPv6 /64) before the token is compared, under one
// lock, so that parallel guesses cannot pass the limit: the
// MaxLoginTries-th wrong one bans the client for LoginBanTime, like
// rcon's; a right token takes its own attempt back.

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
	fails    map[netip.Prefix]*loginFails
}

type session struct {
	csrf    string
	expires time.Time
}

type loginFails struct {
	n      int
	banned time.Time // zero: not banned
	last   time.Time
}

func newAdmin(token string, now func() time.Time) *admin {
	return &admin{token: sha256.Sum256([]byte(token)), now: now, sessions: map[string]*session{}, fails: map[netip.Prefix]*loginFails{}}
}

// tokenOK compares a presented token with the admin token in constant time.
func (a *admin) tokenOK(given string) bool {
	g := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(g[:], a.token[:]) == 1
}

// errBanned is the answer to a banned address, its right token too.
var errBanned = fmt.Sprintf("too many wrong tokens: this address is banned from the admin page for %d minutes", int(LoginBanTime/time.Minute))

// attempt counts a login attempt of client key before its token is
// compared. It reports whether the attempt may go on (false: key is
// banned, nothing counted) and whether this attempt banned key (it was
// the MaxLoginTries-th: a right token takes it back, see right).
func (a *admin) attempt(key netip.Prefix) (ok, bans bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	f := a.fails[key]
	if f == nil {
		if len(a.fails) >= MaxLoginAddrs {
			a.pruneFails(now)
		}
		f = &loginFails{}
		a.fails[key] = f
	}
	if !f.banned.IsZero() {
		if now.Before(f.banned) {
			return false, false
		}
		f.n, f.banned = 0, time.Time{} // the ban ran out
	}
	f.n++
	f.last = now
	if f.n >= MaxLoginTries {
		f.banned = now.Add(LoginBanTime)
		return true, true
	}
	return true, false
}

// right takes back the attempt of key whose token was right (and the ban
// that attempt set).
func (a *admin) right(key netip.Prefix) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.fails[key]
	if f == nil {
		return
	}
	if f.n--; f.n < MaxLoginTries {
		f.banned = time.Time{}
	}
	if f.n <= 0 {
		delete(a.fails, key)
	}
}

// login counts an attempt of r's client and compares its token; it
// reports whether the token is right, and whether the client was refused
// unheard (banned). A wrong token is logged as what (with "banned" when
// this attempt banned the client). A token sent under a host name the
// admin page is not served under (adminHostOK) is neither counted nor
// compared.
func (h *Handler) login(r *http.Request, token, what string) (ok, banned bool) {
	ip := h.clientAddr(r)
	if ok, _ := h.adminHostOK(r); !ok { // a token sent under another site's name counts for nothing
		return false, false
	}
	key := httpserve.AddrKey(ip)
	more, bans := h.admin.attempt(key)
	if !more {
		return false, true
	}
	if h.admin.tokenOK(token) {
		h.admin.right(key)
		return true, false
	}
	h.auditFail(r, ip, what, bans)
	return false, false
}

// pruneFails drops the counters of addresses not banned, then the oldest.
func (a *admin) pruneFails(now time.Time) {
	var oldest netip.Prefix
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
func (a *admin) newSession() (id string, s *session) {
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
	s = &session{csrf: randomHex(), expires: now.Add(SessionTTL)}
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
// counts as a failed login) or the session cookie. banned reports a bearer
// token refused unheard because its client is banned (authNone then).
func (h *Handler) auth(r *http.Request) (k authKind, s *session, banned bool) {
	a := h.admin
	if v := r.Header.Get("Authorization"); v != "" {
		tok, ok := strings.CutPrefix(v, "Bearer ")
		if !ok {
			return authNone, nil, false
		}
		if ok, banned := h.login(r, tok, "wrong token (header)"); !ok {
			return authNone, nil, banned
		}
		return authHeader, nil, false
	}
	if c, err := r.Cookie(CookieName); err == nil {
		if s := a.session(c.Value); s != nil {
			return authCookie, s, false
		}
	}
	return authNone, nil, false
}

// auditFail logs a refused admin login of client ip (the TCP peer is
// "peer": a trusted proxy's when they differ).
func (h *Handler) auditFail(r *http.Request, ip netip.Addr, what string, banned bool) {
	h.opt.Log.Warn().Str("addr", ip.String()).Str("peer", r.RemoteAddr).Str("what", what).Bool("banned", banned).Msg("admin login refused")
}

// AdminOff is the answer to /admin when the configuration has no admin
// token: the page is not found, and the operator who looks for it learns
// why.
const AdminOff = "404 no admin page: web.admin_token is not set in the server's configuration"

func (h *Handler) adminPage(w http.ResponseWriter, r *http.Request) {
	if h.admin == nil {
		http.Error(w, AdminOff, http.StatusNotFound)
		return
	}
	if k, _, _ := h.auth(r); k != authNone {
		h.adminHTML(w, r)
		return
	}
	h.loginHTML(w, r)
}

func (h *Handler) adminLogin(w http.ResponseWriter, r *http.Request) {
	if h.admin == nil {
		http.NotFound(w, r)
		return
	}
	if !h.sameOrigin(r) {
		writeError(w, http.StatusForbidden, "cross-origin login refused")
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "bad form")
		return
	}
	ok, banned := h.login(r, r.PostForm.Get("token"), "wrong token (login form)")
	switch {
	case !ok && banned:
		writeError(w, http.StatusTooManyRequests, errBanned)
		return
	case !ok:
		http.Redirect(w, r, "/admin?failed=1", http.StatusSeeOther)
		return
	}
	id, _ := h.admin.newSession()
	scheme, _ := h.origin(r)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: scheme == "https", MaxAge: int(SessionTTL / time.Second)})
	h.opt.Log.Info().Str("addr", h.clientAddr(r).String()).Str("peer", r.RemoteAddr).Msg("admin logged in")
	http.Redirect(w, r, "/admin", http.StatusSeeOther)
}

func (h *Handler) adminLogout(w http.ResponseWriter, r *http.Request) {
	if h.admin == nil {
		http.NotFound(w, r)
		return
	}
	k, s, _ := h.auth(r)
	if k != authCookie || !h.sameOrigin(r) || !csrfOK(r, s) {
		writeError(w, http.StatusForbidden, "logout needs the session and its CSRF token")
		return
	}
	c, _ := r.Cookie(CookieName)
	h.admin.endSession(c.Value)
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
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
	if k, _, banned := h.auth(r); banned {
		writeError(w, http.StatusTooManyRequests, errBanned)
		return false
	} else if k == authNone {
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
	k, s, _ := h.auth(r)
	if k != authCookie {
		writeError(w, http.StatusUnauthorized, "not logged in")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "csrf": s.csrf})
}

// csrfOK reports whether r carries session s's CSRF token (compared in
// constant time).
func csrfOK(r *http.Request, s *session) bool {
	return subtle.ConstantTimeCompare([]byte(r.Header.Get("X-CSRF-Token")), []byte(s.csrf)) == 1
}

func (h *Handler) adminAction(w http.ResponseWriter, r *http.Request) {
	if h.admin == nil {
		http.NotFound(w, r)
		return
	}
	k, s, banned := h.auth(r)
	switch {
	case banned:
		writeError(w, http.StatusTooManyRequests, errBanned)
		return
	case k == authNone:
		writeError(w, http.StatusUnauthorized, "admin token required")
		return
	case k == authCookie && (!h.sameOrigin(r) || !csrfOK(r, s)):
		writeError(w, http.StatusForbidden, "missing or wrong CSRF token")
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "bad form")
		return
	}
	var g *gameView
	if p, err := parsePort(r.PostForm.Get("game")); err == nil {
		g = h.byPort[p]
	} else if len(h.games) == 1 && r.PostForm.Get("game") == "" {
		g = h.games[0]
	}
	if g == nil {
		writeError(w, http.StatusNotFound, "no such game")
		return
	}
	ctx, cancel := contextTimeout(r, ActionTimeout)
	defer cancel()
	line, err := h.actionLine(ctx, g, r.PostForm.Get("action"), r.PostForm)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	who := "web:" + h.clientAddr(r).String()
	if k == authHeader {
		who += " (token header)"
	}
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

// actionLine is the console line of an admin action on game g: the
// actions on a client slot (kick, remove) look up who holds it in the
// game's frame (SlotActionLine), the others need no frame (ActionLine).
func (h *Handler) actionLine(ctx context.Context, g *gameView, action string, form url.Values) (string, error) {
	if action != "kick" && action != "remove" {
		return ActionLine(action, form)
	}
	id, err := strconv.Atoi(form.Get("id"))
	if err != nil {
		return SlotActionLine(action, form, nil) // refuses the id
	}
	f := h.frame(ctx, g)
	defer f.Release()
	for i := range f.Players {
		if f.Players[i].ID == id {
			return SlotActionLine(action, form, &f.Players[i])
		}
	}
	return SlotActionLine(action, form, nil)
}

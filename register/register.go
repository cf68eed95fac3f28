// Package register announces the server to a master server with DDNet's HTTP
// registration (ops-facts.md 1.2, net.md B6.6), the protocol that feeds the
// DDNet client's server list and, through DDNet's bridge, the legacy 0.7
// lists. It runs in its own goroutine beside the game loop and never blocks
// it: the loop hands it the server info through SetInfo (an atomic pointer and
// a one-slot wake-up), the socket reader hands it the master's UDP challenge
// through HandleChallenge (a bounded queue that drops when full).
//
// Per protocol (tw0.7 and optionally tw0.6, over IPv4 and/or IPv6) it POSTs
// to the register URL every 15 s with the headers Address, Secret,
// Challenge-Secret, Challenge-Token (once the master sent one), Info-Serial
// and, for 0.7, Connless-Token; the JSON info goes along only when it changed
// since the master last accepted it. A change of the info is sent at once,
// but at most once per second. On shutdown every listed protocol is removed
// with "Action: delete" within DeleteTimeout.
package register

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"twserver/observe"

	"github.com/rs/zerolog"
)

// Timing and bounds of the registration (DDNet's register.cpp and http.h).
const (
	// Interval is the time between two registrations of one protocol.
	Interval = 15 * time.Second
	// InfoMinInterval is the shortest time between two registrations
	// caused by info changes.
	InfoMinInterval = time.Second
	// ConnectTimeout bounds the TCP (and TLS) connection to the master.
	ConnectTimeout = 4 * time.Second
	// RequestTimeout bounds a whole register request.
	RequestTimeout = 15 * time.Second
	// StallTimeout aborts a request whose response does not start within
	// it: DDNet aborts below 500 B/s for 5 s, and an answer is a few
	// dozen bytes, so a master silent for 5 s is below that rate.
	StallTimeout = 5 * time.Second
	// DeleteTimeout bounds the "Action: delete" requests on shutdown.
	DeleteTimeout = time.Second
	// MaxResponseBody bounds the master's answer that is read.
	MaxResponseBody = 64 << 10
	// ChallengeQueueLen bounds challenges waiting for the registerer; more are dropped.
	ChallengeQueueLen = 8
)

// Options configure a Registerer.
type Options struct {
	// URL is the register endpoint (sv_register_url).
	URL string
	// Port is the game port announced in Address (sv_register_port, or the
	// server's port).
	Port int
	// ConnlessToken is the server's global 0.7 token, which it accepts on
	// the master's challenge packet from any address (net.md B6.6).
	ConnlessToken uint32
	// Protocols are the registrations to keep (see Select).
	Protocols []Protocol
	// Logger receives one line per change of a protocol's status.
	Logger zerolog.Logger
}

// Registerer keeps the server registered. Create it with New, feed it with
// SetInfo and HandleChallenge, and run it with Run.
type Registerer struct {
	url           string
	port          int
	log           zerolog.Logger
	secret        string // identifies this server process at the master
	challengeUUID string // first part of Challenge-Secret; the master echoes it in the challenge
	connlessHex   string
	enabled       [NumProtocols]bool
	protocols     []Protocol
	clients       [2]*http.Client // by IP family: 0 IPv4, 1 IPv6
	interval      time.Duration   // Interval; shorter in tests

	info     atomic.Pointer[observe.Info]
	infoWake chan struct{}
	chal     chan challenge
	status   [NumProtocols]atomic.Int32
	errors   [NumProtocols]atomic.Uint64

	// Dropped counts challenges dropped because the queue was full.
	Dropped atomic.Uint64
}

type challenge struct {
	p     Protocol
	token string
}

// New returns a Registerer; it sends nothing before Run and a first SetInfo.
func New(o Options) *Registerer {
	r := &Registerer{
		url:           o.URL,
		port:          o.Port,
		log:           o.Logger,
		secret:        newUUID(),
		challengeUUID: newUUID(),
		connlessHex:   fmt.Sprintf("%08x", o.ConnlessToken),
		infoWake:      make(chan struct{}, 1),
		chal:          make(chan challenge, ChallengeQueueLen),
		clients:       [2]*http.Client{newClient("tcp4"), newClient("tcp6")},
		interval:      Interval,
	}
	for _, p := range o.Protocols {
		if p < NumProtocols && !r.enabled[p] {
			r.enabled[p] = true
			r.protocols = append(r.protocols, p)
		}
	}
	return r
}

// newClient returns an HTTP client whose connections use only network
// ("tcp4" or "tcp6"), with DDNet's connect timeout and a stall bound. It
// follows no redirects (a redirected POST would lose its body).
func newClient(network string) *http.Client {
	d := &net.Dialer{Timeout: ConnectTimeout}
	return &http.Client{
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
				return d.DialContext(ctx, network, addr)
			},
			TLSHandshakeTimeout:   ConnectTimeout,
			ResponseHeaderTimeout: StallTimeout,
			MaxIdleConnsPerHost:   1,
			IdleConnTimeout:       2 * Interval,
			ForceAttemptHTTP2:     true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// newUUID returns a random (version 4) UUID in its string form.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// SetPort changes the announced port (Agones tells the allocated host port
// after the start). Call it before Run.
func (r *Registerer) SetPort(port int) { r.port = port }

// Protocols returns the protocols being registered.
func (r *Registerer) Protocols() []Protocol { return r.protocols }

// Status returns the registration state of p (StatusNone for protocols not registered).
func (r *Registerer) Status(p Protocol) Status {
	if p >= NumProtocols {
		return StatusNone
	}
	return Status(r.status[p].Load())
}

// Registered reports whether the master lists the server under p.
func (r *Registerer) Registered(p Protocol) bool { return r.Status(p) == StatusOK }

// Errors counts the failed register requests of p (error answers, no
// answer, no JSON).
func (r *Registerer) Errors(p Protocol) uint64 {
	if p >= NumProtocols {
		return 0
	}
	return r.errors[p].Load()
}

// EachStatus calls f with every registered protocol's name, whether the
// master lists it, and its failed requests (for metrics; any goroutine).
func (r *Registerer) EachStatus(f func(protocol string, listed bool, errors uint64)) {
	for _, p := range r.protocols {
		f(p.String(), r.Registered(p), r.Errors(p))
	}
}

// SetInfo hands the registerer the current server info. It never blocks:
// the newest info replaces an older one not yet taken. info must not be
// modified afterwards. Called by the game loop.
func (r *Registerer) SetInfo(info *observe.Info) {
	r.info.Store(info)
	select {
	case r.infoWake <- struct{}{}:
	default:
	}
}

// HandleChallenge takes the payload of a connless packet that starts with
// ChallengeMagic (after its 0.6 or 0.7 header). It reports whether the
// packet was a valid challenge for this server; it never blocks and does not
// keep payload. Called by the socket reader.
func (r *Registerer) HandleChallenge(payload []byte) bool {
	p, token, err := ParseChallenge(payload, r.challengeUUID)
	if err != nil || !r.enabled[p] {
		return false
	}
	select {
	case r.chal <- challenge{p: p, token: string(token)}:
	default:
		r.Dropped.Add(1)
	}
	return true
}

// protoState is the registerer goroutine's state of one protocol.
type protoState struct {
	next, prev  time.Time // next due registration; last one sent (zero: never)
	inflight    bool
	token       string // challenge token from the master ("" = none yet)
	newToken    bool   // token arrived since the last request
	unreachable bool   // "clients can not connect" logged for this run of need_challenge
}

// result is the outcome of one register request.
type result struct {
	p       Protocol
	serial  int
	status  Status
	message string
}

// Run registers until ctx is done, then deletes the listed protocols (at
// most DeleteTimeout) and returns. Requests run in their own goroutines, so
// a slow master delays nothing but its own protocol; Run waits for them.
func (r *Registerer) Run(ctx context.Context) {
	reqCtx, cancelReqs := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancelReqs()
	results := make(chan result, NumProtocols) // at most one request in flight per protocol
	var (
		st       [NumProtocols]protoState
		body     []byte // JSON of the newest info
		serial   = -1   // Info-Serial of body
		latestOK = -1   // newest serial the master accepted
		timer    = time.NewTimer(time.Hour)
	)
	defer timer.Stop()
	send := func(p Protocol, now time.Time) {
		s := &st[p]
		var info []byte
		if serial > latestOK {
			info = body
		}
		req := r.registerRequest(reqCtx, p, s.token, serial, info)
		s.inflight, s.newToken, s.prev, s.next = true, false, now, now.Add(r.interval)
		if r.Status(p) == StatusNone {
			r.status[p].Store(int32(StatusRegistering))
		}
		wg.Add(1)
		go func(serial int) {
			defer wg.Done()
			status, msg := r.do(p, req)
			results <- result{p: p, serial: serial, status: status, message: msg}
		}(serial)
	}
	for {
		timer.Stop() // Go 1.23+: no stale tick is delivered after Stop or Reset
		if body != nil {
			var due time.Time
			for _, p := range r.protocols {
				if s := &st[p]; !s.inflight && (due.IsZero() || s.next.Before(due)) {
					due = s.next
				}
			}
			if !due.IsZero() {
				timer.Reset(max(time.Until(due), 0))
			}
		}
		select {
		case <-ctx.Done():
			cancelReqs()
			r.deleteAll()
			return
		case <-r.infoWake:
			b := InfoJSON(r.info.Load())
			if bytes.Equal(b, body) {
				continue
			}
			body = b
			serial++
			r.onNewInfo(&st, time.Now())
		case c := <-r.chal:
			s := &st[c.p]
			s.token, s.newToken = c.token, true
			if !s.inflight && r.Status(c.p) == StatusNeedChallenge {
				s.next = time.Now()
			}
		case res := <-results:
			s := &st[res.p]
			s.inflight = false
			r.setStatus(res.p, s, res)
			switch res.status {
			case StatusOK:
				latestOK = max(latestOK, res.serial)
			case StatusNeedInfo:
				if res.serial == latestOK { // the master lost it: send it again
					latestOK--
				}
				s.next = time.Now()
			case StatusNeedChallenge:
				if s.newToken {
					s.next = time.Now()
				}
			}
		case <-timer.C:
		}
		if body == nil {
			continue
		}
		now := time.Now()
		for _, p := range r.protocols {
			if s := &st[p]; !s.inflight && !now.Before(s.next) {
				send(p, now)
			}
		}
	}
}

// onNewInfo schedules the registrations after an info change: protocols
// never registered go at once; otherwise the protocol due first goes at
// once, but not sooner than InfoMinInterval after the latest registration.
func (r *Registerer) onNewInfo(st *[NumProtocols]protoState, now time.Time) {
	var latestPrev time.Time
	first := -1
	for _, p := range r.protocols {
		s := &st[p]
		if s.prev.IsZero() {
			s.next = now
			continue
		}
		if s.prev.After(latestPrev) {
			latestPrev = s.prev
		}
		if first < 0 || s.next.Before(st[first].next) {
			first = int(p)
		}
	}
	if first >= 0 {
		if at := latestPrev.Add(InfoMinInterval); at.Before(st[first].next) {
			st[first].next = at
		}
	}
}

// setStatus records a result and logs changes: one line per change of
// status, not per request.
func (r *Registerer) setStatus(p Protocol, s *protoState, res result) {
	old := Status(r.status[p].Swap(int32(res.status)))
	if res.status == StatusError {
		r.errors[p].Add(1)
	}
	ev := func(e *zerolog.Event) *zerolog.Event {
		return e.Str("protocol", p.String()).Str("url", r.url)
	}
	if res.status == StatusNeedChallenge && old == StatusNeedChallenge && !s.unreachable {
		s.unreachable = true
		ev(r.log.Error()).Int("port", r.port).
			Msg("the master server reports that clients can not connect to this server: let UDP through the firewall/NAT to this port")
		return
	}
	if res.status != StatusNeedChallenge {
		s.unreachable = false
	}
	if res.status == old {
		return
	}
	switch res.status {
	case StatusOK:
		ev(r.log.Info()).Msg("registered with the master server")
	case StatusError:
		ev(r.log.Warn()).Str("error", res.message).Msg("master server registration failed")
	default:
		ev(r.log.Debug()).Str("status", res.status.String()).Msg("master server registration")
	}
}

// registerRequest builds one register POST.
func (r *Registerer) registerRequest(ctx context.Context, p Protocol, token string, serial int, info []byte) *http.Request {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(info))
	if err != nil { // the URL was validated by the configuration
		panic("register: " + err.Error())
	}
	h := req.Header
	h.Set("Address", r.address(p))
	h.Set("Secret", r.secret)
	if p.Seven() {
		h.Set("Connless-Token", r.connlessHex)
	}
	h.Set("Challenge-Secret", r.challengeUUID+":"+p.String())
	if token != "" {
		h.Set("Challenge-Token", token)
	}
	h.Set("Info-Serial", strconv.Itoa(serial))
	if len(info) > 0 {
		h.Set("Content-Type", "application/json")
	}
	return req
}

// address is the Address header: the master puts in the request's source IP.
func (r *Registerer) address(p Protocol) string {
	return p.scheme() + "connecting-address.invalid:" + strconv.Itoa(r.port)
}

// do runs one register request with RequestTimeout and interprets the answer.
func (r *Registerer) do(p Protocol, req *http.Request) (Status, string) {
	ctx, cancel := context.WithTimeout(req.Context(), RequestTimeout)
	defer cancel()
	resp, err := r.client(p).Do(req.WithContext(ctx))
	if err != nil {
		return StatusError, err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody))
	if err != nil {
		return StatusError, err.Error()
	}
	var ans struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(b, &ans); err != nil {
		return StatusError, fmt.Sprintf("non-JSON response from master (HTTP %d)", resp.StatusCode)
	}
	switch ans.Status {
	case "success":
		return StatusOK, ""
	case "need_challenge":
		return StatusNeedChallenge, ""
	case "need_info":
		return StatusNeedInfo, ""
	case "error":
		return StatusError, fmt.Sprintf("HTTP %d: %s", resp.StatusCode, ans.Message)
	}
	return StatusError, fmt.Sprintf("invalid status from master (HTTP %d): %.64q", resp.StatusCode, ans.Status)
}

func (r *Registerer) client(p Protocol) *http.Client {
	if p.IPv6() {
		return r.clients[1]
	}
	return r.clients[0]
}

// deleteAll removes every listed protocol from the master, in parallel,
// each within DeleteTimeout.
func (r *Registerer) deleteAll() {
	var wg sync.WaitGroup
	for _, p := range r.protocols {
		if Status(r.status[p].Swap(int32(StatusNone))) != StatusOK {
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), DeleteTimeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, http.NoBody)
			if err != nil {
				return
			}
			req.Header.Set("Action", "delete")
			req.Header.Set("Address", r.address(p))
			req.Header.Set("Secret", r.secret)
			resp, err := r.client(p).Do(req)
			if err != nil {
				r.log.Warn().Str("protocol", p.String()).Err(err).Msg("master server delete failed")
				return
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBody))
			resp.Body.Close()
			r.log.Info().Str("protocol", p.String()).Msg("unregistered from the master server")
		})
	}
	wg.Wait()
	for _, c := range r.clients {
		c.CloseIdleConnections()
	}
}

// Package agonestest is an Agones SDK sidecar for tests, serving the REST
// API as the SDK's swagger files document it (sdk.swagger.json: POST /ready,
// /health, /shutdown, /allocate with an empty JSON object, GET /gameserver;
// alpha.swagger.json: player capacity, connect, disconnect, count), with
// int64 fields as JSON strings like the gateway. It listens on 127.0.0.1
// and records every call, so tests can check the calls and their order.
package agonestest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Call is one request the sidecar received.
type Call struct {
	At     time.Time
	Method string
	Path   string
	Body   string
	Code   int // HTTP status answered
}

// Options configure the sidecar's GameServer.
type Options struct {
	Name          string // object_meta.name
	HostPort      int    // status.ports[0].port (name "game")
	PeriodSeconds int    // spec.health.period_seconds
	// NoPlayerTracking answers 404 on the alpha endpoints, like a sidecar
	// without the PlayerTracking feature gate.
	NoPlayerTracking bool
	// OnReady, when set, runs inside the /ready handler before it answers.
	OnReady func()
}

// Sidecar is a running test sidecar.
type Sidecar struct {
	ln  net.Listener
	srv *http.Server
	o   Options

	mu       sync.Mutex
	calls    []Call
	state    string
	capacity int64
	players  []string
}

// Start serves on addr ("127.0.0.1:0", or a port reserved by the test).
func Start(addr string, o Options) (*Sidecar, error) {
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		return nil, fmt.Errorf("agonestest: %q is not on 127.0.0.1", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Sidecar{ln: ln, o: o, state: "Scheduled"}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Port is the port the sidecar listens on.
func (s *Sidecar) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Close stops the sidecar.
func (s *Sidecar) Close() { _ = s.srv.Close() }

// Calls returns a copy of the calls so far.
func (s *Sidecar) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// State is the GameServer state ("Scheduled", "Ready", "Shutdown").
func (s *Sidecar) State() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Players returns the tracked player ids.
func (s *Sidecar) Players() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.players)
}

type jsonError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (s *Sidecar) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	code, out := s.handle(r, body)
	s.mu.Lock()
	s.calls = append(s.calls, Call{At: time.Now(), Method: r.Method, Path: r.URL.Path, Body: string(body), Code: code})
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(out)
	_, _ = w.Write(b)
}

// emptyBody checks the documented request body of the lifecycle calls: a
// JSON object (the SDK's Empty).
func emptyBody(r *http.Request, body []byte) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return fmt.Errorf("Content-Type %q, want application/json", r.Header.Get("Content-Type"))
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("body is not a JSON object: %v", err)
	}
	return nil
}

func (s *Sidecar) handle(r *http.Request, body []byte) (int, any) {
	bad := func(err error) (int, any) { return http.StatusBadRequest, jsonError{Code: 3, Message: err.Error()} }
	notFound := func() (int, any) { return http.StatusNotFound, jsonError{Code: 5, Message: "Not Found"} }
	path := r.URL.Path
	if strings.HasPrefix(path, "/alpha/") && s.o.NoPlayerTracking {
		return notFound()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method + " " + path {
	case "POST /ready", "POST /health", "POST /shutdown", "POST /allocate":
		if err := emptyBody(r, body); err != nil {
			return bad(err)
		}
		switch path {
		case "/ready":
			if s.o.OnReady != nil {
				s.mu.Unlock()
				s.o.OnReady()
				s.mu.Lock()
			}
			s.state = "Ready"
		case "/shutdown":
			s.state = "Shutdown"
		case "/allocate":
			s.state = "Allocated"
		}
		return http.StatusOK, struct{}{}
	case "GET /gameserver":
		return http.StatusOK, s.gameServer()
	case "PUT /alpha/player/capacity":
		var in struct {
			Count json.Number `json:"count"`
		}
		n, err := int64(0), json.Unmarshal(body, &in)
		if err == nil {
			n, err = strconv.ParseInt(in.Count.String(), 10, 64)
		}
		if err != nil {
			return bad(err)
		}
		s.capacity = n
		return http.StatusOK, struct{}{}
	case "GET /alpha/player/count":
		return http.StatusOK, map[string]string{"count": strconv.Itoa(len(s.players))}
	case "POST /alpha/player/connect", "POST /alpha/player/disconnect":
		var in struct {
			PlayerID string `json:"playerID"`
		}
		if err := json.Unmarshal(body, &in); err != nil || in.PlayerID == "" {
			return bad(fmt.Errorf("playerID missing: %v", err))
		}
		i := slices.Index(s.players, in.PlayerID)
		if path == "/alpha/player/connect" {
			if i >= 0 {
				return http.StatusOK, map[string]bool{"bool": false}
			}
			if int64(len(s.players)) >= s.capacity {
				return http.StatusInternalServerError, jsonError{Code: 2, Message: "players are already at capacity"}
			}
			s.players = append(s.players, in.PlayerID)
			return http.StatusOK, map[string]bool{"bool": true}
		}
		if i < 0 {
			return http.StatusOK, map[string]bool{"bool": false}
		}
		s.players = slices.Delete(s.players, i, i+1)
		return http.StatusOK, map[string]bool{"bool": true}
	}
	return notFound()
}

// gameServer is the GameServer in the SDK's JSON form.
func (s *Sidecar) gameServer() any {
	type port struct {
		Name string `json:"name"`
		Port int    `json:"port"`
	}
	return map[string]any{
		"object_meta": map[string]any{"name": s.o.Name, "namespace": "default", "uid": "0b7f3c1e", "generation": "1"},
		"spec": map[string]any{"health": map[string]any{
			"period_seconds": s.o.PeriodSeconds, "failure_threshold": 3, "initial_delay_seconds": 5}},
		"status": map[string]any{
			"state": s.state, "address": "127.0.0.1",
			"ports":   []port{{Name: "game", Port: s.o.HostPort}},
			"players": map[string]any{"count": strconv.Itoa(len(s.players)), "capacity": strconv.FormatInt(s.capacity, 10), "ids": s.players},
		},
	}
}

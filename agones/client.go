// Package agones talks to the Agones SDK sidecar of a game-server pod over
// its REST API (sdk.swagger.json and alpha.swagger.json of the Agones SDK;
// ops-facts.md 5.2). The Go SDK module is not used: this is the small REST
// client of the documented endpoints, plus an Agent that runs the server's
// side of the lifecycle (Ready once the game runs, Health pings while the
// game loop ticks, player tracking, Shutdown at the end).
package agones

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// Defaults of the SDK sidecar and bounds of the client.
const (
	// DefaultHTTPPort is the sidecar's REST port when AGONES_SDK_HTTP_PORT is unset.
	DefaultHTTPPort = 9358
	// PortEnv names the environment variable with the sidecar's REST port.
	PortEnv = "AGONES_SDK_HTTP_PORT"
	// RequestTimeout bounds one REST call (the sidecar is on localhost).
	RequestTimeout = 2 * time.Second
	// MaxResponseBody bounds an answer that is read.
	MaxResponseBody = 1 << 20
)

// ErrNotFound is returned for endpoints the sidecar does not serve (for
// example the alpha player tracking without its feature gate).
var ErrNotFound = errors.New("agones: endpoint not served by the SDK sidecar")

// PortFromEnv returns the sidecar's REST port from AGONES_SDK_HTTP_PORT, or
// DefaultHTTPPort when it is unset or not a port number.
func PortFromEnv() int {
	if p, err := strconv.Atoi(os.Getenv(PortEnv)); err == nil && p > 0 && p < 65536 {
		return p
	}
	return DefaultHTTPPort
}

// Client calls the SDK sidecar's REST API. Its methods are safe for
// concurrent use; each call is bounded by RequestTimeout.
type Client struct {
	base string
	http *http.Client
}

// NewClient returns a client of the sidecar at 127.0.0.1:port.
func NewClient(port int) *Client {
	return &Client{
		base: "http://127.0.0.1:" + strconv.Itoa(port), // the sidecar listens on localhost; no name to resolve
		http: &http.Client{Timeout: RequestTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: 2}},
	}
}

// GameServer is the part of the SDK's GameServer the server uses.
type GameServer struct {
	ObjectMeta struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"object_meta"`
	Spec struct {
		Health struct {
			Disabled         bool `json:"disabled"`
			PeriodSeconds    int  `json:"period_seconds"`
			FailureThreshold int  `json:"failure_threshold"`
		} `json:"health"`
	} `json:"spec"`
	Status struct {
		State   string `json:"state"`
		Address string `json:"address"`
		Ports   []struct {
			Name string `json:"name"`
			Port int    `json:"port"`
		} `json:"ports"`
	} `json:"status"`
}

// HostPort returns the allocated port named name, else the first port, else 0.
func (g *GameServer) HostPort(name string) int {
	for _, p := range g.Status.Ports {
		if p.Name == name {
			return p.Port
		}
	}
	if len(g.Status.Ports) > 0 {
		return g.Status.Ports[0].Port
	}
	return 0
}

// Ready marks the GameServer Ready (POST /ready).
func (c *Client) Ready(ctx context.Context) error {
	return c.call(ctx, "POST", "/ready", struct{}{}, nil)
}

// Health sends one health ping (POST /health).
func (c *Client) Health(ctx context.Context) error {
	return c.call(ctx, "POST", "/health", struct{}{}, nil)
}

// Shutdown moves the GameServer to Shutdown; Agones then deletes the pod (POST /shutdown).
func (c *Client) Shutdown(ctx context.Context) error {
	return c.call(ctx, "POST", "/shutdown", struct{}{}, nil)
}

// GameServer reads the GameServer (GET /gameserver).
func (c *Client) GameServer(ctx context.Context) (*GameServer, error) {
	var g GameServer
	if err := c.call(ctx, "GET", "/gameserver", nil, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// int64String is an int64 sent as a JSON string (the gateway's int64 form);
// it also reads plain numbers.
type int64String int64

func (n int64String) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(n), 10) + `"`), nil
}

func (n *int64String) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	v, err := strconv.ParseInt(s, 10, 64)
	*n = int64String(v)
	return err
}

// SetPlayerCapacity sets the player capacity (alpha, PUT /alpha/player/capacity).
func (c *Client) SetPlayerCapacity(ctx context.Context, n int) error {
	return c.call(ctx, "PUT", "/alpha/player/capacity", struct {
		Count int64String `json:"count"`
	}{int64String(n)}, nil)
}

// PlayerCount returns the tracked player count (alpha, GET /alpha/player/count).
func (c *Client) PlayerCount(ctx context.Context) (int, error) {
	var out struct {
		Count int64String `json:"count"`
	}
	err := c.call(ctx, "GET", "/alpha/player/count", nil, &out)
	return int(out.Count), err
}

// PlayerConnect adds a player id (alpha, POST /alpha/player/connect); false
// when the id was already connected.
func (c *Client) PlayerConnect(ctx context.Context, id string) (bool, error) {
	return c.player(ctx, "/alpha/player/connect", id)
}

// PlayerDisconnect removes a player id (alpha, POST /alpha/player/disconnect);
// false when the id was not connected.
func (c *Client) PlayerDisconnect(ctx context.Context, id string) (bool, error) {
	return c.player(ctx, "/alpha/player/disconnect", id)
}

func (c *Client) player(ctx context.Context, path, id string) (bool, error) {
	var out struct {
		Bool bool `json:"bool"`
	}
	err := c.call(ctx, "POST", path, struct {
		PlayerID string `json:"playerID"`
	}{id}, &out)
	return out.Bool, err
}

// call does one request with a JSON body (nil: none) and decodes a JSON
// answer into out (nil: ignored).
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody))
	if err != nil {
		return err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusNotImplemented:
		return fmt.Errorf("%s %s: %w", method, path, ErrNotFound)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s %s: HTTP %d: %.200s", method, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: %v", method, path, err)
		}
	}
	return nil
}

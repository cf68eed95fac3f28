package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/web"
)

// httpConfig is the process's HTTP side: the metrics address and the web
// page's section (both "" = off; two listeners, config refuses one
// address for both).
type httpConfig struct {
	metrics string
	web     config.WebConfig
}

// webConfig is the process's [web] section: the first game's that sets
// web.listen (checkWeb makes the others agree), or the zero section.
func webConfig(cfgs []config.Config) config.WebConfig {
	for _, c := range cfgs {
		if c.Web.Listen != "" {
			return c.Web
		}
	}
	return config.WebConfig{}
}

// recordingsMode maps web.recordings to the page's mode ("" = the default).
var recordingsMode = map[string]web.RecordingsMode{
	config.RecordingsOff: web.RecordingsOff, config.RecordingsAdmin: web.RecordingsAdmin, config.RecordingsPublic: web.RecordingsPublic,
}

// checkWeb refuses a game whose [web] section differs from another's: one
// process serves one page for all its games.
func checkWeb(cfgs []config.Config, c config.Config, path string) error {
	w := webConfig(cfgs)
	if c.Web.Listen != "" && !c.Web.Equal(w) {
		return fmt.Errorf("%s: [web] differs from another game's: one process serves one web page for all its games", path)
	}
	return nil
}

// startHTTP opens the metrics endpoint and the web page as hc says (each
// on its own listener: the page's visitors cannot take /healthz down) and
// serves them until ctx ends; the returned func waits for them to stop.
func startHTTP(ctx context.Context, hc httpConfig, games []*game, log zerolog.Logger) (wait func(), err error) {
	if hc.web.Listen == "" {
		return startMetrics(ctx, hc.metrics, games, log)
	}
	wg := make([]web.Game, len(games))
	for i, g := range games {
		wg[i] = web.Game{Port: int(g.srv.Addr().Port()), Server: g.srv}
		if rc := g.cfg.Record; rc.Teehistorian || rc.Demo {
			wg[i].RecordDir = rc.Dir
			wg[i].MapDir = g.cfg.Map.Dir
			if f := g.cfg.Map.File; f != "" {
				wg[i].MapDir = filepath.Dir(f) // the viewer looks maps up by name
			}
		}
	}
	proxies, err := hc.web.TrustedPrefixes()
	if err != nil {
		return nil, err
	}
	h, err := web.New(wg, web.Options{AdminToken: hc.web.AdminToken, PublicChat: hc.web.PublicChat, Log: log,
		Recordings: recordingsMode[hc.web.Recordings], TrustedProxies: proxies, AdminHosts: hc.web.AdminHosts, WatchChild: watchChild})
	if err != nil {
		return nil, err
	}
	if hc.metrics == hc.web.Listen { // config.Check refuses it
		return nil, fmt.Errorf("web.listen %q is also metrics.listen: /healthz and /metrics need their own listener", hc.web.Listen)
	}
	waitMetrics, err := startMetrics(ctx, hc.metrics, games, log)
	if err != nil {
		return nil, err
	}
	ln, err := procSockets.tcp(hc.web.Listen)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := h.ServeListener(ctx, ln); err != nil && err != http.ErrServerClosed {
			log.Error().Err(err).Msg("web page stopped")
		}
	}()
	return func() { <-done; waitMetrics() }, nil
}

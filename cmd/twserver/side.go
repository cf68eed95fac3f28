package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"twserver/agones"
	"twserver/config"
	"twserver/console"
	"twserver/econ"
	"twserver/observe"
	"twserver/register"
	"twserver/server"
)

// sideChannels are the helpers that run beside the game loop (master
// registration, Agones, econ, the command FIFO): they watch the server
// through its hooks and never hold up a tick.
type sideChannels struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	reg    *register.Registerer // nil when registration is off
}

// startSideChannels installs the hooks on srv (before its Run) and starts the
// helpers; they stop when ctx is done or stop is called, except the
// consoles (econ, FIFO), which stop only with stop: they still deliver the
// lines of the game's shutdown. It fails when the econ cannot listen or the
// FIFO cannot be opened.
func startSideChannels(ctx context.Context, cfg config.Config, srv *server.Server, log zerolog.Logger) (*sideChannels, error) {
	cctx, cancelConsoles := context.WithCancel(context.WithoutCancel(ctx))
	ctx, cancel := context.WithCancel(ctx)
	sc := &sideChannels{cancel: func() { cancel(); cancelConsoles() }}
	if err := sc.startConsoles(cctx, cfg, srv, log); err != nil {
		sc.cancel()
		sc.wg.Wait()
		return nil, err
	}
	hostPort := sc.startAgones(ctx, cfg, srv, log)
	sc.startRegister(ctx, cfg, srv, hostPort, log)
	return sc, nil
}

// startConsoles starts the econ when [econ] sets a port, and the command
// FIFO when server.input_fifo is set; both run lines as the stdin console.
func (sc *sideChannels) startConsoles(ctx context.Context, cfg config.Config, srv *server.Server, log zerolog.Logger) error {
	if ec := cfg.Econ; ec.Port != 0 {
		e, err := econ.Listen(econ.Options{
			Addr:     net.JoinHostPort(ec.Bind, strconv.Itoa(ec.Port)),
			Password: ec.Password, OutputLevel: ec.OutputLevel,
			AuthTimeout: time.Duration(ec.AuthTimeout) * time.Second,
			BanTime:     time.Duration(ec.BanTime) * time.Second,
			Exec:        srv.SubmitConsole,
			Logger:      log.With().Str("component", "econ").Logger(),
			Listen:      procSockets.tcp,
		})
		if err != nil {
			return fmt.Errorf("econ.bind/econ.port: %w", err)
		}
		srv.OnConsoleLine(ec.OutputLevel, func(l console.Line) { e.Print(econ.Line(l)) })
		sc.wg.Go(func() { e.Run(ctx) })
	}
	if path := cfg.Server.InputFIFO; path != "" {
		f, err := econ.OpenFIFO(path, srv.SubmitConsole, log.With().Str("component", "fifo").Logger())
		if err != nil {
			return fmt.Errorf("server.input_fifo: %w", err)
		}
		sc.wg.Go(func() { f.Run(ctx) })
	}
	return nil
}

// loopMaxTickAge is how far the game loop may be behind its schedule
// (metrics.TickTiming.Overdue: it ticks every 20 ms, or wakes at its
// heartbeat while the empty game sleeps) to count as alive for the Agones
// health pings.
const loopMaxTickAge = 2 * time.Second

// startAgones starts the Agones agent when [agones] enables it. It returns
// the channel that delivers the allocated host port (nil when off).
func (sc *sideChannels) startAgones(ctx context.Context, cfg config.Config, srv *server.Server, log zerolog.Logger) <-chan int {
	if !cfg.Agones.Enabled {
		return nil
	}
	port := agones.PortFromEnv()
	agent := agones.NewAgent(agones.AgentOptions{
		Client:       agones.NewClient(port),
		HealthPeriod: time.Duration(cfg.Agones.HealthPeriod) * time.Second,
		Alive: func() bool {
			d, ok := srv.TickTiming().Overdue(time.Now())
			return ok && d < loopMaxTickAge
		},
		Capacity: cfg.Server.MaxClients,
		Logger:   log.With().Str("component", "agones").Logger(),
	})
	srv.Observe(func(e observe.Event) {
		switch e.Kind {
		case observe.EventStarted:
			agent.Started()
		case observe.EventPlayerEnter:
			agent.PlayerJoined(e.ClientID, e.Name)
		case observe.EventPlayerLeave:
			agent.PlayerLeft(e.ClientID)
		}
	})
	log.Info().Int("sdk_port", port).Msg("Agones integration on")
	sc.wg.Go(func() { agent.Run(ctx) })
	return agent.HostPort()
}

// stop ends the helpers and waits for them (registration sends its deletes,
// bounded by register.DeleteTimeout) at most until deadline.
func (sc *sideChannels) stop(deadline time.Time) {
	sc.cancel()
	done := make(chan struct{})
	go func() { sc.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
	}
}

// startRegister starts master registration when [register] enables it.
// With Agones and no register.port, the allocated host port is announced:
// registration starts once the sidecar told it.
func (sc *sideChannels) startRegister(ctx context.Context, cfg config.Config, srv *server.Server, hostPort <-chan int, log zerolog.Logger) {
	rc := cfg.Register
	if !rc.Enabled {
		log.Info().Msg("master registration is off (register.enabled = false): players find this server only by its address or in the LAN tab")
		return
	}
	if w := loopbackRegisterWarning(rc.URL, srv.Addr().Addr()); w != "" {
		log.Warn().Str("addr", srv.Addr().String()).Str("url", rc.URL).Msg(w)
	}
	v4, v6 := registerFamilies(rc.Families, srv.Addr().Addr())
	protocols := register.Select(rc.TW06, v4, v6)
	port := rc.Port
	if port == 0 {
		port = int(srv.Addr().Port())
	}
	reg := register.New(register.Options{
		URL: rc.URL, Port: port, ConnlessToken: uint32(srv.Master().Token), Protocols: protocols,
		Logger: log.With().Str("component", "register").Logger(),
	})
	sc.reg = reg
	srv.Master().Challenge = reg.HandleChallenge
	srv.Observe(func(e observe.Event) {
		if e.Kind == observe.EventInfo {
			reg.SetInfo(e.Info)
		}
	})
	var hb *register.Heartbeat
	if len(rc.UDPMasters) > 0 {
		hb = register.NewHeartbeat(register.HeartbeatOptions{Masters: rc.UDPMasters, Port: port, Send: srv.Master(),
			Logger: log.With().Str("component", "register-udp").Logger()})
		srv.Master().Packet = hb.HandlePacket
	}
	names := make([]string, len(protocols))
	for i, p := range protocols {
		names[i] = p.String()
	}
	run := func() {
		sc.wg.Go(func() { reg.Run(ctx) })
		if hb != nil {
			sc.wg.Go(func() { hb.Run(ctx) })
		}
	}
	if rc.Port != 0 || hostPort == nil {
		log.Info().Str("url", rc.URL).Int("port", port).Strs("protocols", names).Strs("udp_masters", rc.UDPMasters).Msg("master registration on")
		run()
		return
	}
	log.Info().Str("url", rc.URL).Strs("protocols", names).Strs("udp_masters", rc.UDPMasters).Msg("master registration on, waiting for the allocated port from Agones")
	sc.wg.Go(func() {
		select {
		case p := <-hostPort:
			log.Info().Int("port", p).Msg("registering the Agones host port")
			reg.SetPort(p)
			if hb != nil {
				hb.SetPort(p)
			}
			run()
		case <-ctx.Done():
		}
	})
}

// loopbackRegisterWarning is the warning for a game bound to a loopback
// address that registers with a master elsewhere: the master's challenge
// and every player outside this host cannot reach it, so it is never
// listed; "" otherwise (a master on this host, as in tests, reaches it).
func loopbackRegisterWarning(masterURL string, bind netip.Addr) string {
	if !bind.Unmap().IsLoopback() {
		return ""
	}
	u, err := url.Parse(masterURL)
	if err != nil {
		return ""
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil && ip.Unmap().IsLoopback() || u.Hostname() == "localhost" {
		return ""
	}
	return "registration on, but server.bind is a loopback address: the master server cannot reach the game port to list it, " +
		"and no player outside this host can join; set server.bind to \"\" (every address) or a public address"
}

// registerFamilies returns the configured IP families the socket bound to
// bind can serve: an IPv4 address serves only IPv4, an IPv6 address other
// than :: only IPv6.
func registerFamilies(families []string, bind netip.Addr) (v4, v6 bool) {
	v4, v6 = slices.Contains(families, "ipv4"), slices.Contains(families, "ipv6")
	switch {
	case bind.Is4() || bind.Is4In6():
		v6 = false
	case bind.Is6() && !bind.IsUnspecified():
		v4 = false
	}
	return v4, v6
}

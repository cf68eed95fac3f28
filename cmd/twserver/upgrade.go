package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/console"
	"twserver/edge"
	"twserver/handover"
	"twserver/metrics"
	"twserver/pid1"
	"twserver/server"
	"twserver/session"
	"twserver/sockio"
	"twserver/worldstate"
)

// HoldTimeout bounds the wait for every game's loop to stop at an upgrade;
// a loop that does not stop in time cancels the upgrade.
const HoldTimeout = 2 * time.Second

// sockets are the process's sockets, kept so that they pass to a new
// process at an upgrade: the games' UDP sockets ("udp/"+bind:port) and the
// TCP listeners of the metrics endpoint, the web page and the econ
// ("tcp/"+address). A process that is the new side of a handover takes
// them from it instead of opening them.
type sockets struct {
	mu    sync.Mutex
	in    *handover.Incoming // nil on a plain start
	files []handover.File
	kinds map[string]sockio.Kind // the UDP sockets' kind, whose blocking mode an upgrade restores
	state handover.State         // what the old process handed over (takeOver)
	slots [][]session.Handover   // state.Games' clients, decoded once (takeOver)
}

// procSockets are the sockets of this process.
var procSockets = &sockets{kinds: map[string]sockio.Kind{}}

// udp opens (or takes over) the game socket of addr (bind:port).
func (s *sockets) udp(addr string) (sockio.PacketConn, sockio.Choice, error) {
	name := "udp/" + addr
	var uc *net.UDPConn
	f := s.take(name)
	if f != nil {
		pc, err := net.FilePacketConn(f)
		if err != nil {
			return nil, sockio.Choice{}, fmt.Errorf("inherited %s: %w", name, err)
		}
		var ok bool
		if uc, ok = pc.(*net.UDPConn); !ok {
			return nil, sockio.Choice{}, fmt.Errorf("inherited %s is not a UDP socket", name)
		}
	} else {
		network := listenNetwork("udp", addr)
		ua, err := net.ResolveUDPAddr(network, addr)
		if err != nil {
			return nil, sockio.Choice{}, err
		}
		if uc, err = net.ListenUDP(network, ua); err != nil {
			return nil, sockio.Choice{}, err
		}
	}
	c, ch, err := sockio.WrapUDP(uc)
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, ch, err
	}
	if f == nil {
		// The file kept for an upgrade is made from the wrapped socket:
		// the paced socket's stays out of the runtime's poller
		// (sockio.File), where uc.File()'s would wake the process at
		// every datagram.
		if f, err = sockio.File(c); err != nil {
			c.Close()
			return nil, ch, err
		}
	}
	s.keep(name, f, ch.Kind)
	return c, ch, nil
}

// tcp opens (or takes over) a TCP listener on addr.
func (s *sockets) tcp(addr string) (net.Listener, error) {
	name := "tcp/" + addr
	if f := s.take(name); f != nil {
		ln, err := net.FileListener(f)
		if err != nil {
			return nil, fmt.Errorf("inherited %s: %w", name, err)
		}
		s.keep(name, f, "")
		return ln, nil
	}
	ln, err := net.Listen(listenNetwork("tcp", addr), addr)
	if err != nil {
		return nil, err
	}
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return ln, nil
	}
	f, err := tl.File()
	if err != nil {
		ln.Close()
		return nil, err
	}
	s.keep(name, f, "")
	return ln, nil
}

// listenNetwork is the network to listen on addr with: IPv4 alone
// ("udp4", "tcp4") for the IPv4 wildcard 0.0.0.0, which Go's "udp" and
// "tcp" would open as a dual-stack socket that also serves IPv6, as if
// the operator had written "" or "::"; network itself for the others.
func listenNetwork(network, addr string) string {
	if ap, err := netip.ParseAddrPort(addr); err == nil && ap.Addr() == netip.IPv4Unspecified() {
		return network + "4"
	}
	return network
}

func (s *sockets) take(name string) *os.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.in == nil {
		return nil
	}
	return s.in.File(name)
}

func (s *sockets) keep(name string, f *os.File, kind sockio.Kind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = append(s.files, handover.File{Name: name, F: f})
	if kind != "" {
		s.kinds[name] = kind
	}
}

// restoreModes gives each UDP socket back the blocking mode its kind reads
// in: the file's mode is shared by every descriptor of the socket, and
// passing it (and a new process opening it) changes it.
func (s *sockets) restoreModes(log zerolog.Logger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.files {
		kind, ok := s.kinds[f.Name]
		if !ok {
			continue
		}
		raw, err := f.F.SyscallConn()
		if err == nil {
			err = raw.Control(func(fd uintptr) { err = syscall.SetNonblock(int(fd), kind != sockio.KindPaced) })
		}
		if err != nil {
			log.Error().Err(err).Str("socket", f.Name).Msg("upgrade: cannot restore the socket's mode")
		}
	}
}

// closeAll closes the kept descriptors and forgets them, as the games
// stop: a kept descriptor holds its socket open (a run() in a test that
// follows must find the port free, a listener must not take connections
// nobody answers).
func (s *sockets) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.files {
		f.F.Close()
	}
	s.files, s.kinds, s.in, s.state = nil, map[string]sockio.Kind{}, nil, handover.State{}
}

// list is the sockets to pass, in a stable order.
func (s *sockets) list() []handover.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.files)
}

// upgradeCounts counts the upgrades by result (handover.Result, in the
// order of metrics.UpgradeResults) for twserver_upgrades_total.
var upgradeCounts metrics.Upgrades

// errUpgradeBusy: an upgrade is under way.
var errUpgradeBusy = errors.New("an upgrade is under way")

// upgrading is set while an upgrade runs.
var upgrading atomic.Bool

// upgrade hands the process's sockets and games to a new process started
// from the path twserver was started from, with args: it starts the new
// process, waits until it is prepared, holds every game's loop, hands the
// state over and waits for its word. It returns
// true when the new process serves (the caller exits at once, without the
// shutdown of its games); on false every game was resumed and the reason
// was logged.
func upgrade(games []*game, args []string, log zerolog.Logger) bool {
	if !upgrading.CompareAndSwap(false, true) {
		log.Warn().Err(errUpgradeBusy).Msg("upgrade refused")
		return false
	}
	defer upgrading.Store(false)
	defer upgradeAsked.Store(false) // the next command may ask again
	if os.Getpid() == 1 {
		// The new process is a child: when PID 1 exits, the container
		// ends with it. Only with TWSERVER_INIT=0: otherwise PID 1 is
		// the init (package pid1) and the server its child.
		upgradeCounts[handover.StartFailed].Add(1)
		log.Error().Msg("upgrade refused: this process is PID 1 (a container, TWSERVER_INIT=0); its exit would end the container with the new process")
		return false
	}
	start := time.Now()
	exe, err := handover.Executable()
	if err != nil {
		upgradeCounts[handover.StartFailed].Add(1)
		log.Error().Err(err).Msg("upgrade failed: the path of the binary is unknown")
		return false
	}
	log.Info().Str("binary", exe).Int("games", len(games)).Msg("upgrade: starting the new process")
	child, err := handover.Start(exe, args, procSockets.list(), os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		upgradeCounts[handover.StartFailed].Add(1)
		log.Error().Err(err).Str("binary", exe).Msg("upgrade failed: cannot start the new process; the games go on")
		return false
	}
	failed := func(r handover.Result, detail string, paused time.Duration) bool {
		upgradeCounts[r].Add(1)
		log.Error().Str("result", r.String()).Str("detail", detail).Int("pid", child.Pid()).Dur("paused_ms", paused).
			Msg("upgrade failed: the new process was abandoned; the games go on")
		return false
	}
	if r, detail := child.Prepared(handover.PrepareTimeout); r != handover.Ready {
		return failed(r, detail, 0)
	}
	// From here to the end nothing in the games changes: the state handed
	// over stays true, and stays ours if the new process fails.
	held := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), HoldTimeout)
	defer cancel()
	var releases []func()
	resume := func() {
		procSockets.restoreModes(log)
		for _, r := range releases {
			r()
		}
	}
	st := handover.State{}
	for _, g := range games {
		r, err := g.srv.Hold(ctx)
		if err != nil {
			resume()
			child.Hand(handover.State{}) // refused: the games do not match
			child.Wait(handover.ReadyTimeout)
			upgradeCounts[handover.StartFailed].Add(1)
			log.Error().Err(err).Str("game", g.name).Msg("upgrade failed: a game loop did not stop; the games go on")
			return false
		}
		releases = append(releases, r)
		gs, err := exportGame(g)
		if err != nil {
			resume()
			child.Wait(0)
			return failed(handover.StartFailed, err.Error(), time.Since(held))
		}
		st.Games = append(st.Games, gs)
	}
	st.Upgrades = carriedUpgrades(&upgradeCounts)
	if err := child.Hand(st); err != nil {
		resume()
		child.Wait(0)
		return failed(handover.StartFailed, err.Error(), time.Since(held))
	}
	if r, detail := child.Wait(handover.ReadyTimeout); r != handover.Ready {
		resume()
		return failed(r, detail, time.Since(held))
	}
	upgradeCounts[handover.Ready].Add(1)
	endRecordings(games)
	if err := handover.NotifyMainPID(child.Pid()); err != nil {
		log.Warn().Err(err).Msg("upgrade: cannot tell systemd the new main process")
	}
	log.Info().Int("pid", child.Pid()).Dur("paused_ms", time.Since(held)).Dur("took_ms", time.Since(start)).Msg("upgrade: the new process serves; this one exits")
	return true
}

// takeOver is the new process's start of a handover: it says it is
// prepared (the configuration was read and checked), reads the state
// and refuses it (telling the old process, which goes on) when the games
// of the configuration read now are not the games handed over: a changed
// server.port or server.bind, or a game added or removed, needs a restart.
func takeOver(in *handover.Incoming, cfgs []config.Config) error {
	if err := in.Prepared(); err != nil {
		return err
	}
	st, err := in.State()
	if err != nil {
		return err
	}
	slots, err := checkState(st, cfgs)
	if err != nil {
		return err
	}
	procSockets.in, procSockets.state, procSockets.slots = in, st, slots
	for i, n := range st.Upgrades[:min(len(st.Upgrades), len(upgradeCounts))] {
		upgradeCounts[i].Store(n) // twserver_upgrades_total goes on from the old process's
	}
	return nil
}

// checkSlots decodes the clients of game g and refuses them when a slot
// they hold is beyond maxClients, the new configuration's
// server.max_clients.
func checkSlots(g handover.GameState, maxClients int) ([]session.Handover, error) {
	if len(g.Slots) == 0 {
		return nil, nil
	}
	var slots []session.Handover
	if err := json.Unmarshal(g.Slots, &slots); err != nil {
		return nil, fmt.Errorf("the clients of %s: %w", g.Addr, err)
	}
	top := -1
	for _, c := range slots {
		top = max(top, c.ID)
	}
	if top >= maxClients {
		return nil, fmt.Errorf("the game %s has %d clients, one in slot %d, and this configuration says server.max_clients = %d: "+
			"upgrade with at least %d and lower it at a restart", g.Addr, len(slots), top, maxClients, top+1)
	}
	return slots, nil
}

// carriedUpgrades are the counts of ups for the state of an upgrade: as
// they are, and this upgrade as Ready, which it is when the new process
// serves with them.
func carriedUpgrades(ups *metrics.Upgrades) []uint64 {
	out := make([]uint64, len(ups))
	for i := range ups {
		out[i] = ups[i].Load()
	}
	out[handover.Ready]++
	return out
}

// checkState refuses a handover whose games this process's configuration
// cannot go on with: other addresses, clients in slots the configuration
// does not have, or a game type other than the one a game plays (its
// world has the entities of its type). It returns each game's clients,
// decoded, in the order of st.Games.
func checkState(st handover.State, cfgs []config.Config) ([][]session.Handover, error) {
	var had, have []string
	for _, g := range st.Games {
		had = append(had, g.Addr)
	}
	for _, c := range cfgs {
		have = append(have, gameAddr(c))
	}
	if !slices.Equal(had, have) {
		return nil, fmt.Errorf("the games' addresses changed from %v to %v (server.bind, server.port or the -config files): that needs a restart", had, have)
	}
	clients := make([][]session.Handover, len(st.Games))
	for i, g := range st.Games {
		slots, err := checkSlots(g, cfgs[i].Server.MaxClients)
		if err != nil {
			return nil, err
		}
		clients[i] = slots
		if t := cfgs[i].Game.Type; g.GameType != "" && len(g.World) > 0 && !strings.EqualFold(g.GameType, t) {
			return nil, fmt.Errorf("the game %s plays %s and this configuration says game.type = %q: its world cannot pass to another game type; "+
				"upgrade with game.type = %q and switch the game afterwards (sv_gametype %s, then change_map), or restart", g.Addr, g.GameType, t, strings.ToLower(g.GameType), t)
		}
	}
	return clients, nil
}

// adopt gives the new game srv of address addr the clients the old
// process handed over (none on a plain start), and says whether the
// game's world came with them.
func (s *sockets) adopt(addr string, srv *server.Server) (clients int, world bool, err error) {
	for i, g := range s.state.Games {
		if g.Addr != addr || len(g.Slots) == 0 {
			continue
		}
		return len(s.slots[i]), len(g.World) > 0, adoptGame(g, srv, s.slots[i])
	}
	return 0, false, nil
}

// reportReady tells the old process of a handover that this one serves
// once every game's loop has run since start (a tick, or the wake-up that
// put an empty game to sleep), or refuses when one did not within
// handover.ReadyTimeout; it closes the inherited sockets nothing took.
func reportReady(in *handover.Incoming, games []*game, start int64, log zerolog.Logger) {
	deadline := time.Now().Add(handover.ReadyTimeout)
	for _, name := range in.Names() {
		log.Warn().Str("socket", name).Msg("upgrade: an inherited socket no part of this process uses; closed")
		in.File(name).Close()
	}
	for _, g := range games {
		for g.srv.TickTiming().LastTick.Load() <= start {
			if time.Now().After(deadline) {
				_ = in.Refuse(fmt.Sprintf("game %s did not tick within %v", g.name, handover.ReadyTimeout))
				log.Error().Str("game", g.name).Msg("upgrade: a game did not tick; refused")
				os.Exit(1)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if err := in.Ready(); err != nil {
		log.Error().Err(err).Msg("upgrade: cannot tell the old process")
		return
	}
	log.Info().Int("games", len(games)).Msg("upgrade: serving the games handed over")
}

// upgradeArgs are what an upgrade needs from the start: the arguments the
// new process gets, and the handover this process took over (nil on a
// plain start).
type upgradeArgs struct {
	args []string
	in   *handover.Incoming
}

// exitUpgraded ends the old process of a successful upgrade at once: no
// game shutdown (no "Server shutdown" to the clients, no master
// deregistration, no Agones shutdown), the new process serves.
func exitUpgraded() { os.Exit(0) }

// exportGame is the state of game g at an upgrade (its loop held): its
// clients, its world and its bans.
func exportGame(g *game) (handover.GameState, error) {
	slots, err := json.Marshal(g.srv.ExportSlots())
	if err != nil {
		return handover.GameState{}, err
	}
	w, err := json.Marshal(g.srv.ExportWorld())
	st := handover.GameState{Addr: gameAddr(g.cfg), Slots: slots, World: w, Bans: exportBans(g.srv)}
	if in := g.srv.Gauges().Info.Load(); in != nil { // the game type it plays, published every tick
		st.GameType = in.GameType
	}
	return st, err
}

// adoptGame continues the game g handed over in srv: its world and
// clients, or (a state without a world) its clients in a new game.
func adoptGame(g handover.GameState, srv *server.Server, slots []session.Handover) error {
	if len(g.World) == 0 {
		return srv.AdoptSlots(slots)
	}
	var wh server.WorldHandover
	if err := json.Unmarshal(g.World, &wh); err != nil {
		return fmt.Errorf("the world of %s: %w", g.Addr, err)
	}
	if err := srv.AdoptGame(wh, slots); errors.Is(err, worldstate.ErrMalformed) {
		return fmt.Errorf("the world of %s does not fit this process's (another game.type or game.powerups than the game plays? those need a restart): %w", g.Addr, err)
	} else if err != nil {
		return fmt.Errorf("the world of %s: %w", g.Addr, err)
	}
	return nil
}

// endRecordings closes the recordings of the games of an old process whose
// upgrade succeeded (their loops held), so that its teehistorian and demo
// files end with their closing records; the new process starts its own.
func endRecordings(games []*game) {
	for _, g := range games {
		g.srv.EndRecordings()
	}
}

// InitEnv is the environment variable that chooses whether twserver runs
// as the init of its container (package pid1): "1" always, "0" never,
// unset when it is PID 1. The init removes it from the server's
// environment.
const InitEnv = "TWSERVER_INIT"

// asInit says whether this process is to be the init (InitEnv).
func asInit() bool {
	switch os.Getenv(InitEnv) {
	case "1":
		return true
	case "0":
		return false
	}
	return os.Getpid() == 1
}

// runInit runs the init: the server is this binary with the same
// arguments, started as its child (and after an upgrade the new binary,
// started by the server itself).
func runInit() int {
	_ = os.Unsetenv(InitEnv)
	exe, err := handover.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "twserver init: the path of the binary: %v\n", err)
		return 1
	}
	return pid1.Run(exe, os.Args[1:], pid1.Options{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
}

// errUpgradeAsked: an upgrade was asked for and has not started yet.
var errUpgradeAsked = errors.New("an upgrade was asked for already")

// upgradeAsked is set by the upgrade command until the upgrade it asked
// for has ended.
var upgradeAsked atomic.Bool

// installUpgradeCommand gives the console command upgrade (every game's)
// its request and returns the function that takes it away again: a
// SIGUSR2 of its own on the channel serveGames waits on, so the command
// starts the same upgrade as the signal. One at a time: while an upgrade
// runs, or one asked for has not ended, the command is refused with the
// reason.
func installUpgradeCommand(usr2 chan<- os.Signal, log zerolog.Logger) (uninstall func()) {
	console.OnUpgrade(func() error {
		if upgrading.Load() {
			return errUpgradeBusy
		}
		if !upgradeAsked.CompareAndSwap(false, true) {
			return errUpgradeAsked
		}
		select {
		case usr2 <- syscall.SIGUSR2:
		default: // a SIGUSR2 waits already: it starts the same upgrade
		}
		log.Info().Msg("upgrade asked for by the console command")
		return nil
	})
	return func() { console.OnUpgrade(nil) }
}

// exportBans is the bans of srv (its loop held) for the handover state;
// nil when there are none.
func exportBans(srv *server.Server) json.RawMessage {
	recs := srv.Bans().Export(time.Now())
	if len(recs) == 0 {
		return nil
	}
	b, err := json.Marshal(recs)
	if err != nil {
		return nil // cannot happen: addresses, times and strings
	}
	return b
}

// restoreBans gives the new game srv of address addr the bans the old
// process handed over (none on a plain start) and returns how many.
func (s *sockets) restoreBans(addr string, srv *server.Server) (int, error) {
	i := slices.IndexFunc(s.state.Games, func(g handover.GameState) bool { return g.Addr == addr })
	if i < 0 || len(s.state.Games[i].Bans) == 0 {
		return 0, nil
	}
	var recs []edge.BanRecord
	if err := json.Unmarshal(s.state.Games[i].Bans, &recs); err != nil {
		return 0, fmt.Errorf("the bans of %s: %w", addr, err)
	}
	return len(recs), srv.Bans().Import(recs, time.Now())
}

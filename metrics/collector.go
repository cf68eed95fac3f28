package metrics

import (
	"sync/atomic"

	"twserver/edge"
)

// Metric descriptions. teeworlds_* are the game-level figures (the names of
// the community exporter where one exists), twserver_* the internals.
var (
	descClients    = newFamily("teeworlds_server_clients", "Connected clients by connection state and protocol dialect.", typeGauge, "state", "dialect")
	descPlayers    = newFamily("teeworlds_server_players", "In-game clients that are not spectators, by protocol dialect.", typeGauge, "dialect")
	descSpectators = newFamily("teeworlds_server_spectators", "In-game spectators, by protocol dialect.", typeGauge, "dialect")
	descMaxClients = newFamily("teeworlds_server_max_clients", "Connection slots (server.max_clients).", typeGauge)
	descEvents     = newFamily("teeworlds_game_events_total", "Game events: players entering (join) and leaving (leave) the game, chat lines, kill messages, CTF flag captures, called votes.", typeCounter, "event")
	descInfo       = newFamily("teeworlds_server_info", "Always 1; the labels are the server's name, game type and map.", typeGauge, "name", "gametype", "map")

	descTickDur    = newFamily("twserver_tick_duration_seconds", "Work of each game-loop wake-up that ran ticks: simulation, snapshots, connection timers and writes.", typeHistogram)
	descTickLate   = newFamily("twserver_tick_lateness_seconds", "How long after the scheduled start of its first due tick the game loop woke up.", typeHistogram)
	descTicks      = newFamily("twserver_ticks_total", "Ticks simulated.", typeCounter)
	descSlept      = newFamily("twserver_ticks_slept_total", "Ticks an empty game skipped while it slept (nothing would have changed but the tick number).", typeCounter)
	descSleeps     = newFamily("twserver_sleeps_total", "Times the game fell asleep: nobody connected and nothing to simulate.", typeCounter)
	descSkipped    = newFamily("twserver_ticks_skipped_total", "Ticks that missed their own wake-up: simulated back to back with the next, or dropped.", typeCounter)
	descDropped    = newFamily("twserver_ticks_dropped_total", "Ticks never simulated because the loop fell too far behind and moved its schedule.", typeCounter)
	descSnapsSkip  = newFamily("twserver_snapshot_ticks_skipped_total", "Snapshot ticks whose snapshots were not sent because a late wake-up caught up past them.", typeCounter)
	descLastTick   = newFamily("twserver_last_tick_timestamp_seconds", "Unix time at which the game loop last finished running ticks, or last woke while the empty game slept (0 before either).", typeGauge)
	descSnapBytes  = newFamily("twserver_snapshot_bytes", "Size of each snapshot sent to a client (all parts, before Huffman compression).", typeHistogram)
	descPackets    = newFamily("twserver_net_packets_total", "UDP datagrams received (in) and sent (out).", typeCounter, "dir")
	descBytes      = newFamily("twserver_net_bytes_total", "UDP payload bytes received (in) and sent (out).", typeCounter, "dir")
	descNetDropped = newFamily("twserver_net_dropped_total", "Received datagrams or messages dropped, by reason.", typeCounter, "reason")
	descReplies    = newFamily("twserver_connless_replies_total", "Connectionless requests answered, by kind.", typeCounter, "kind")
	descPregame    = newFamily("twserver_pregame_dropped_total", "Clients dropped before entering the game by the slot-holding defences: stalled in a stage (stall_auth, stall_connecting, stall_ready) or evicted for a new connection.", typeCounter, "reason")
	descConns      = newFamily("twserver_connections_total", "CONNECT attempts with a valid token, by result.", typeCounter, "result")
	descRetokened  = newFamily("twserver_retokened_total", "0.7 connections that went on under a later token of their address (the client took a second token reply, made under the server's next secret).", typeCounter)
	descBans       = newFamily("twserver_bans", "Active IP bans.", typeGauge)
	descBansTotal  = newFamily("twserver_bans_total", "Bans added (console, rcon, votes, stress bans).", typeCounter)
	descRecFiles   = newFamily("twserver_recording_files_total", "Recording files started (teehistorian and demo).", typeCounter)
	descRecStopped = newFamily("twserver_recording_stopped_total", "Recordings stopped early on a write error or a size bound.", typeCounter)
	descRecPruned  = newFamily("twserver_recording_pruned_total", "Old recording files removed by the retention bound.", typeCounter)
	descRecBytes   = newFamily("twserver_recording_bytes_total", "Bytes written to recording files.", typeCounter)
	descRegStatus  = newFamily("twserver_register_status", "1 while the master server lists this server for the protocol, else 0.", typeGauge, "protocol")
	descRegErrors  = newFamily("twserver_register_errors_total", "Failed master registration attempts, by protocol.", typeCounter, "protocol")
	descSocket     = newFamily("twserver_socket_info", "Always 1; the label is the socket the game reads from: paced (Linux), batch (the fallback where the paced socket cannot be set up, or other systems), mem (tests).", typeGauge, "kind")
)

// The le label values of the histograms.
var tickLEs, sizeLEs = les(TickBuckets[:]), les(SizeBuckets[:])

// collector reads a Source (and the registration state, if any) when
// Prometheus scrapes.
type collector struct {
	src Source
	reg func() []RegisterState
}

// collect writes the current values of the source (runs on the scraping
// goroutine).
func (c *collector) collect(x *expo) {
	g := c.src.Gauges()
	for d, dialect := range Dialects {
		for st, state := range ClientStates {
			if st == 0 { // "empty" slots are not clients
				continue
			}
			x.float(descClients, float64(g.Clients[d][st].Load()), state, dialect)
		}
		x.float(descPlayers, float64(g.Players[d].Load()), dialect)
		x.float(descSpectators, float64(g.Spectators[d].Load()), dialect)
	}
	x.float(descMaxClients, float64(g.MaxClients.Load()))
	if in := g.Info.Load(); in != nil {
		x.uint(descInfo, 1, in.Name, in.GameType, in.Map)
	}
	for i, ev := range GameEvents {
		x.uint(descEvents, g.Events[i].Load(), ev)
	}

	t := c.src.TickTiming()
	durationHistogram(x, descTickDur, &t.Work)
	durationHistogram(x, descTickLate, &t.Lateness)
	x.uint(descTicks, t.Ticks.Load())
	x.uint(descSlept, t.Slept.Load())
	x.uint(descSleeps, g.Sleeps.Load())
	x.uint(descSkipped, t.Skipped.Load())
	x.uint(descDropped, t.Dropped.Load())
	x.uint(descSnapsSkip, t.SnapsSkipped.Load())
	x.float(descLastTick, float64(t.LastTick.Load())/1e9) // 0 before the first tick
	cum := g.SnapshotBytes.Buckets()
	x.histogram(descSnapBytes, sizeLEs, cum[:], g.SnapshotBytes.Count(), float64(g.SnapshotBytes.Sum()))

	st := c.src.Stats()
	for _, v := range [...]struct {
		f     *family
		n     *atomic.Uint64
		label string
	}{
		{descPackets, &st.Received, "in"}, {descPackets, &g.Sent, "out"},
		{descBytes, &st.ReceivedBytes, "in"}, {descBytes, &g.SentBytes, "out"},
		{descNetDropped, &st.Malformed, "malformed"}, {descNetDropped, &st.BadToken, "bad_token"},
		{descNetDropped, &st.QueueFull, "queue_full"}, {descNetDropped, &st.ConnlessDropped, "connless_budget"},
		{descNetDropped, &st.Flood, "flood"}, {descNetDropped, &st.BadMessages, "bad_message"},
		{descReplies, &st.TokenReplies, "token"}, {descReplies, &st.InfoReplies, "info"},
	} {
		x.uint(v.f, v.n.Load(), v.label)
	}
	x.uint(descRetokened, st.Retokened.Load())
	x.uint(descConns, g.Connects.Load(), "accepted")
	for i, reason := range RefuseReasons {
		x.uint(descConns, g.Refused[i].Load(), reason)
	}
	for i, reason := range edge.PregameDrops {
		x.uint(descPregame, g.PregameDrops[i].Load(), reason)
	}
	if g.Socket != "" {
		x.uint(descSocket, 1, string(g.Socket))
	}
	x.float(descBans, float64(g.Bans.Load()))
	x.uint(descBansTotal, g.BansTotal.Load())

	rc := c.src.RecordCounters()
	x.uint(descRecFiles, rc["record_files"])
	x.uint(descRecStopped, rc["record_stopped"])
	x.uint(descRecPruned, rc["record_pruned"])
	x.uint(descRecBytes, rc["record_bytes"])

	if c.reg != nil {
		for _, r := range c.reg() {
			var up uint64
			if r.Registered {
				up = 1
			}
			x.uint(descRegStatus, up, r.Protocol)
			x.uint(descRegErrors, r.Errors, r.Protocol)
		}
	}
}

// durationHistogram writes a DurationHist as a histogram in seconds.
func durationHistogram(x *expo, f *family, h *DurationHist) {
	cum := h.Buckets()
	// Count last (histogram raises it to the highest bucket): observations
	// keep arriving, and the count must not be below the highest bucket.
	sum := h.Sum().Seconds()
	x.histogram(f, tickLEs, cum[:], h.Count(), sum)
}

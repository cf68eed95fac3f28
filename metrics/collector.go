package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"twserver/edge"
)

// desc is shorthand for a metric description.
func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// Metric descriptions. teeworlds_* are the game-level figures (the names of
// the community exporter where one exists), twserver_* the internals.
var (
	descClients    = desc("teeworlds_server_clients", "Connected clients by connection state and protocol dialect.", "state", "dialect")
	descPlayers    = desc("teeworlds_server_players", "In-game clients that are not spectators, by protocol dialect.", "dialect")
	descSpectators = desc("teeworlds_server_spectators", "In-game spectators, by protocol dialect.", "dialect")
	descMaxClients = desc("teeworlds_server_max_clients", "Connection slots (server.max_clients).")
	descEvents     = desc("teeworlds_game_events_total", "Game events: players entering (join) and leaving (leave) the game, chat lines, kill messages, CTF flag captures, called votes.", "event")
	descInfo       = desc("teeworlds_server_info", "Always 1; the labels are the server's name, game type and map.", "name", "gametype", "map")

	descTickDur    = desc("twserver_tick_duration_seconds", "Work of each game-loop wake-up that ran ticks: simulation, snapshots, connection timers and writes.")
	descTickLate   = desc("twserver_tick_lateness_seconds", "How long after the scheduled start of its first due tick the game loop woke up.")
	descTicks      = desc("twserver_ticks_total", "Ticks simulated.")
	descSlept      = desc("twserver_ticks_slept_total", "Ticks an empty game skipped while it slept (nothing would have changed but the tick number).")
	descSleeps     = desc("twserver_sleeps_total", "Times the game fell asleep: nobody connected and nothing to simulate.")
	descSkipped    = desc("twserver_ticks_skipped_total", "Ticks that missed their own wake-up: simulated back to back with the next, or dropped.")
	descDropped    = desc("twserver_ticks_dropped_total", "Ticks never simulated because the loop fell too far behind and moved its schedule.")
	descSnapsSkip  = desc("twserver_snapshot_ticks_skipped_total", "Snapshot ticks whose snapshots were not sent because a late wake-up caught up past them.")
	descLastTick   = desc("twserver_last_tick_timestamp_seconds", "Unix time at which the game loop last finished running ticks, or last woke while the empty game slept (0 before either).")
	descSnapBytes  = desc("twserver_snapshot_bytes", "Size of each snapshot sent to a client (all parts, before Huffman compression).")
	descPackets    = desc("twserver_net_packets_total", "UDP datagrams received (in) and sent (out).", "dir")
	descBytes      = desc("twserver_net_bytes_total", "UDP payload bytes received (in) and sent (out).", "dir")
	descNetDropped = desc("twserver_net_dropped_total", "Received datagrams or messages dropped, by reason.", "reason")
	descReplies    = desc("twserver_connless_replies_total", "Connectionless requests answered, by kind.", "kind")
	descPregame    = desc("twserver_pregame_dropped_total", "Clients dropped before entering the game by the slot-holding defences: stalled in a stage (stall_auth, stall_connecting, stall_ready) or evicted for a new connection.", "reason")
	descConns      = desc("twserver_connections_total", "CONNECT attempts with a valid token, by result.", "result")
	descBans       = desc("twserver_bans", "Active IP bans.")
	descBansTotal  = desc("twserver_bans_total", "Bans added (console, rcon, votes, stress bans).")
	descRecFiles   = desc("twserver_recording_files_total", "Recording files started (teehistorian and demo).")
	descRecStopped = desc("twserver_recording_stopped_total", "Recordings stopped early on a write error or a size bound.")
	descRecPruned  = desc("twserver_recording_pruned_total", "Old recording files removed by the retention bound.")
	descRecBytes   = desc("twserver_recording_bytes_total", "Bytes written to recording files.")
	descRegStatus  = desc("twserver_register_status", "1 while the master server lists this server for the protocol, else 0.", "protocol")
	descRegErrors  = desc("twserver_register_errors_total", "Failed master registration attempts, by protocol.", "protocol")
	descSocket     = desc("twserver_socket_info", "Always 1; the label is the socket the game reads from: paced (Linux), batch (the fallback where the paced socket cannot be set up, or other systems), mem (tests).", "kind")
)

// collector reads a Source (and the registration state, if any) when
// Prometheus scrapes.
type collector struct {
	src Source
	reg func() []RegisterState
}

func newCollector(src Source, reg func() []RegisterState) *collector {
	return &collector{src: src, reg: reg}
}

// Describe sends every description.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		descClients, descPlayers, descSpectators, descMaxClients, descInfo, descEvents,
		descTickDur, descTickLate, descTicks, descSlept, descSleeps, descSkipped, descDropped, descSnapsSkip, descLastTick, descSnapBytes,
		descPackets, descBytes, descNetDropped, descReplies, descConns, descPregame, descBans, descBansTotal,
		descRecFiles, descRecStopped, descRecPruned, descRecBytes, descRegStatus, descRegErrors, descSocket,
	} {
		ch <- d
	}
}

// Collect reads the current values (runs on the scraping goroutine).
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	g := c.src.Gauges()
	for d, dialect := range Dialects {
		for st, state := range ClientStates {
			if st == 0 { // "empty" slots are not clients
				continue
			}
			gauge(descClients, float64(g.Clients[d][st].Load()), state, dialect)
		}
		gauge(descPlayers, float64(g.Players[d].Load()), dialect)
		gauge(descSpectators, float64(g.Spectators[d].Load()), dialect)
	}
	gauge(descMaxClients, float64(g.MaxClients.Load()))
	if in := g.Info.Load(); in != nil {
		gauge(descInfo, 1, in.Name, in.GameType, in.Map)
	}
	for i, ev := range GameEvents {
		counter(descEvents, g.Events[i].Load(), ev)
	}

	t := c.src.TickTiming()
	ch <- durationHistogram(descTickDur, &t.Work)
	ch <- durationHistogram(descTickLate, &t.Lateness)
	counter(descTicks, t.Ticks.Load())
	counter(descSlept, t.Slept.Load())
	counter(descSleeps, g.Sleeps.Load())
	counter(descSkipped, t.Skipped.Load())
	counter(descDropped, t.Dropped.Load())
	counter(descSnapsSkip, t.SnapsSkipped.Load())
	gauge(descLastTick, float64(t.LastTick.Load())/1e9) // 0 before the first tick
	ch <- sizeHistogram(descSnapBytes, &g.SnapshotBytes)

	st := c.src.Stats()
	for _, v := range []struct {
		d     *prometheus.Desc
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
		counter(v.d, v.n.Load(), v.label)
	}
	counter(descConns, g.Connects.Load(), "accepted")
	for i, reason := range RefuseReasons {
		counter(descConns, g.Refused[i].Load(), reason)
	}
	for i, reason := range edge.PregameDrops {
		counter(descPregame, g.PregameDrops[i].Load(), reason)
	}
	if g.Socket != "" {
		gauge(descSocket, 1, string(g.Socket))
	}
	gauge(descBans, float64(g.Bans.Load()))
	counter(descBansTotal, g.BansTotal.Load())

	rc := c.src.RecordCounters()
	counter(descRecFiles, rc["record_files"])
	counter(descRecStopped, rc["record_stopped"])
	counter(descRecPruned, rc["record_pruned"])
	counter(descRecBytes, rc["record_bytes"])

	if c.reg != nil {
		for _, r := range c.reg() {
			up := 0.0
			if r.Registered {
				up = 1
			}
			gauge(descRegStatus, up, r.Protocol)
			counter(descRegErrors, r.Errors, r.Protocol)
		}
	}
}

// durationHistogram converts a DurationHist to a Prometheus histogram in seconds.
func durationHistogram(d *prometheus.Desc, h *DurationHist) prometheus.Metric {
	cum := h.Buckets()
	b := make(map[float64]uint64, len(cum))
	for i, ub := range TickBuckets {
		b[ub] = cum[i]
	}
	// Count last: observations keep arriving, and the count must not be
	// below the highest bucket.
	sum := h.Sum().Seconds()
	return prometheus.MustNewConstHistogram(d, max(h.Count(), cum[len(cum)-1]), sum, b)
}

// sizeHistogram converts a SizeHist to a Prometheus histogram in bytes.
func sizeHistogram(d *prometheus.Desc, h *SizeHist) prometheus.Metric {
	cum := h.Buckets()
	b := make(map[float64]uint64, len(cum))
	for i, ub := range SizeBuckets {
		b[ub] = cum[i]
	}
	return prometheus.MustNewConstHistogram(d, max(h.Count(), cum[len(cum)-1]), float64(h.Sum()), b)
}

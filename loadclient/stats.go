package loadclient

import (
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"twserver/netproto"
)

// Histogram bounds: latencies are counted in fixed buckets of
// HistBucket up to HistMax; larger values land in one overflow bucket.
const (
	HistBucket  = 250 * time.Microsecond
	HistMax     = 2 * time.Second
	histBuckets = int(HistMax/HistBucket) + 1
)

// Histogram counts durations in fixed linear buckets (bounded memory, no
// allocation per sample). The zero value is ready to use.
type Histogram struct {
	counts [histBuckets]uint32
	n      uint64
	sum    time.Duration
	max    time.Duration
}

// Add records one duration (negative ones count as 0).
func (h *Histogram) Add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	i := int(d / HistBucket)
	if i >= histBuckets {
		i = histBuckets - 1
	}
	h.counts[i]++
	h.n++
	h.sum += d
	if d > h.max {
		h.max = d
	}
}

// Merge adds the samples of o.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// Count returns the number of samples.
func (h *Histogram) Count() uint64 { return h.n }

// Quantile returns the upper bound of the bucket holding quantile q (0..1),
// or the maximum for q >= 1; 0 without samples.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	if q >= 1 {
		return h.max
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	if rank < 1 {
		rank = 1
	}
	var acc uint64
	for i, c := range h.counts {
		acc += uint64(c)
		if acc >= rank {
			if i == histBuckets-1 {
				return h.max
			}
			return min(time.Duration(i+1)*HistBucket, h.max)
		}
	}
	return h.max
}

// Mean returns the mean sample, 0 without samples.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// Live holds counters a client updates while it runs; the runner reads them
// for the status line. All fields are atomic.
type Live struct {
	InGame    atomic.Bool
	Snapshots atomic.Int64
	CRCErrors atomic.Int64
	BytesIn   atomic.Int64
	BytesOut  atomic.Int64
}

// Stats is the final report of one load client.
type Stats struct {
	Index   int    `json:"index"`
	Source  string `json:"source"`
	Name    string `json:"name"`
	Proto   string `json:"proto"`   // "0.7" or "0.6" (DDNet's dialect)
	Entered bool   `json:"entered"` // reached the game (two snapshots after ENTERGAME)
	Failure string `json:"failure,omitempty"`
	// Stage the client was in when it failed or stopped.
	Stage string `json:"stage"`
	// Left: the client left before the end of the run as its scenario
	// said (RunConfig.LeaveAt), closing its connection itself.
	Left bool `json:"left,omitempty"`

	ConnectTime  time.Duration `json:"connect_ns"` // start to in game
	InGame       time.Duration `json:"ingame_ns"`  // in game to stop
	MapDownloads int           `json:"map_downloads"`
	MapBytes     int           `json:"map_bytes"`

	Snapshots int64 `json:"snapshots"`  // reconstructed (incl. empty)
	SnapEmpty int64 `json:"snap_empty"` // SNAPEMPTY among them
	SnapParts int64 `json:"snap_parts"` // SNAP/SNAPSINGLE messages
	// CharsInView is the number of characters (tees) in the client's
	// snapshots, summed over its in-game snapshots: how much of the game
	// it saw, which sets how big its snapshots are.
	CharsInView   int64 `json:"chars_in_view"`
	CRCErrors     int64 `json:"crc_errors"`     // delta applied, CRC differs
	DeltaErrors   int64 `json:"delta_errors"`   // malformed message, part or delta
	NoBase        int64 `json:"no_base"`        // delta base not stored (acked -1)
	Stale         int64 `json:"stale"`          // parts of old ticks
	BadItems      int64 `json:"bad_items"`      // snapshot items the 0.7.5 client would drop
	BadMessages   int64 `json:"bad_messages"`   // game/system messages failing their checks
	UnknownMsgs   int64 `json:"unknown_msgs"`   // ids this client does not know
	Inputs        int64 `json:"inputs"`         // INPUT messages sent
	SkippedInputs int64 `json:"skipped_inputs"` // scheduled inputs dropped after a stall (more than maxCatchUp behind)
	LateInputs    int64 `json:"late_inputs"`    // INPUTTIMING with time left < 0
	// LateOwn counts the late inputs this client sent behind its own
	// schedule by more than they were late (its driver stalled): sent on
	// time they would have arrived in time. LateInputs - LateOwn is the
	// lateness the client did not cause.
	LateOwn     int64 `json:"late_own"`
	Timings     int64 `json:"timings"` // INPUTTIMING messages received in game
	TimeLeftSum int64 `json:"time_left_sum_ms"`
	DroppedPkts int   `json:"dropped_pkts"` // datagrams that failed parsing
	// FirstSnapTick and LastSnapTick are the ticks of the first and last
	// snapshot counted in Snapshots (-1: none; reset by a map change).
	FirstSnapTick int32  `json:"first_snap_tick"`
	LastSnapTick  int32  `json:"last_snap_tick"`
	FirstBadError string `json:"first_bad_error,omitempty"`

	// Traffic while in game (the rates), UDP payload bytes.
	BytesIn    int64 `json:"bytes_in"`
	BytesOut   int64 `json:"bytes_out"`
	PacketsIn  int64 `json:"packets_in"`
	PacketsOut int64 `json:"packets_out"`
	// Traffic of the whole session including handshake and map download.
	TotalBytesIn  int64 `json:"total_bytes_in"`
	TotalBytesOut int64 `json:"total_bytes_out"`
	// Rx splits the in-game server-to-client traffic by message kind.
	Rx RxBreakdown `json:"rx_breakdown"`

	Latency Histogram `json:"-"`
	// SendDelay is how late each INPUT left after its scheduled time.
	SendDelay Histogram `json:"-"`
	// SnapSpacing is, for each in-game snapshot after the first, how much
	// longer than its tick interval (ticks × 20 ms) it took to arrive after
	// the previous one: about 0 while the server ticks on time, the
	// lateness of the server's tick (plus network jitter) otherwise.
	SnapSpacing Histogram `json:"-"`
	// SnapGaps counts snapshot ticks missing between consecutive in-game
	// snapshots at the 25/s rate (a gap of more than 2 ticks): skipped
	// ticks or lost snapshots.
	SnapGaps int64 `json:"snap_gaps"`
	// MaxSnapInterval is the longest time between two snapshots the client
	// received in game, across map changes (a map change, a live upgrade):
	// the longest pause its player saw.
	MaxSnapInterval time.Duration `json:"max_snap_interval_ns"`
	// TickBacks counts the snapshots whose tick was not after the one
	// before, map changes included: a game that started again (a map
	// change, a live upgrade whose world did not pass) counts once.
	TickBacks int64 `json:"tick_backs"`

	// MapTime is how long the last map download took (MAP_CHANGE to the
	// last chunk).
	MapTime time.Duration `json:"map_download_ns"`
	// NetUp and NetDown are what the impairment did to the client's
	// traffic (client to server, server to client).
	NetUp   LinkStats `json:"injected_up"`
	NetDown LinkStats `json:"injected_down"`
	// BlackoutInGame: the client had an in-game snapshot before the
	// blackout; BlackoutRecovery is then the time from the blackout's end
	// to its first verified snapshot after it (-1: none came).
	BlackoutInGame   bool          `json:"blackout_in_game"`
	BlackoutRecovery time.Duration `json:"blackout_recovery_ns"`
	// Slot-holding runs (hold.go): whether the client stalled at its hold
	// stage, when (since its start), and when it failed (was dropped).
	Held   bool          `json:"held,omitempty"`
	HeldAt time.Duration `json:"held_ns,omitempty"`
	FailAt time.Duration `json:"fail_ns,omitempty"`
}

// noteSpacing records one interval between consecutive in-game snapshots:
// dt ticks apart, arrived elapsed apart.
func (s *Stats) noteSpacing(dt int32, elapsed time.Duration) {
	s.SnapSpacing.Add(elapsed - time.Duration(dt)*netproto.TickDuration)
	if dt > 2 {
		s.SnapGaps += int64((dt - 1) / 2)
	}
}

// RxBreakdown splits a client's in-game received traffic by message kind:
// the bytes of each kind's messages (message header and body, decompressed,
// without the chunk header) and how many there were. What the wire carries
// besides (packet and chunk headers, control packets, less what compression
// saved) is BytesIn minus the sum of the message bytes.
type RxBreakdown struct {
	SnapSingleBytes int64 `json:"snap_single_bytes"` // NETMSG_SNAPSINGLE
	SnapSingle      int64 `json:"snap_single"`
	SnapSliceBytes  int64 `json:"snap_slice_bytes"` // NETMSG_SNAP (one part of several)
	SnapSlice       int64 `json:"snap_slice"`
	SnapEmptyBytes  int64 `json:"snap_empty_bytes"` // NETMSG_SNAPEMPTY
	SnapEmpty       int64 `json:"snap_empty"`
	TimingBytes     int64 `json:"input_timing_bytes"` // NETMSG_INPUTTIMING
	Timing          int64 `json:"input_timing"`
	SysBytes        int64 `json:"other_sys_bytes"` // every other system message
	Sys             int64 `json:"other_sys"`
	GameBytes       int64 `json:"game_bytes"` // game messages (chat, kill messages, ...)
	Game            int64 `json:"game"`
	Chunks          int64 `json:"chunks"`       // message chunks
	VitalChunks     int64 `json:"vital_chunks"` // of which vital
	// PayloadBytes is the packets' payload after decompression (chunks
	// with their headers), CompressedPackets how many packets came
	// compressed, ControlPackets how many were control packets (keep-alives).
	PayloadBytes      int64 `json:"payload_bytes"`
	CompressedPackets int64 `json:"compressed_packets"`
	ControlPackets    int64 `json:"control_packets"`
}

// add sums o into r.
func (r *RxBreakdown) add(o *RxBreakdown) {
	r.SnapSingleBytes += o.SnapSingleBytes
	r.SnapSingle += o.SnapSingle
	r.SnapSliceBytes += o.SnapSliceBytes
	r.SnapSlice += o.SnapSlice
	r.SnapEmptyBytes += o.SnapEmptyBytes
	r.SnapEmpty += o.SnapEmpty
	r.TimingBytes += o.TimingBytes
	r.Timing += o.Timing
	r.SysBytes += o.SysBytes
	r.Sys += o.Sys
	r.GameBytes += o.GameBytes
	r.Game += o.Game
	r.Chunks += o.Chunks
	r.VitalChunks += o.VitalChunks
	r.PayloadBytes += o.PayloadBytes
	r.CompressedPackets += o.CompressedPackets
	r.ControlPackets += o.ControlPackets
}

// Rate returns n per second of in-game time.
func (s *Stats) Rate(n int64) float64 {
	if s.InGame <= 0 {
		return 0
	}
	return float64(n) / s.InGame.Seconds()
}

// SnapSpan returns the server time between the client's first and last
// counted snapshot (from their ticks).
func (s *Stats) SnapSpan() time.Duration {
	if s.FirstSnapTick < 0 || s.LastSnapTick < s.FirstSnapTick {
		return 0
	}
	return time.Duration(s.LastSnapTick-s.FirstSnapTick) * netproto.TickDuration
}

// SnapRateServerTime returns the client's snapshots per second of server
// time: the intervals between its first and last snapshot over SnapSpan.
func (s *Stats) SnapRateServerTime() float64 {
	if span := s.SnapSpan(); span > 0 {
		return float64(s.Snapshots-1) / span.Seconds()
	}
	return 0
}

// BadSnapshots is the number of snapshots that failed to decode or verify.
func (s *Stats) BadSnapshots() int64 { return s.CRCErrors + s.DeltaErrors }

// Dist summarizes one per-client quantity over the clients that entered.
type Dist struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	P50  float64 `json:"p50"`
	Max  float64 `json:"max"`
}

func distOf(v []float64) Dist {
	if len(v) == 0 {
		return Dist{}
	}
	sort.Float64s(v)
	var sum float64
	for _, x := range v {
		sum += x
	}
	r := func(x float64) float64 { return math.Round(x*100) / 100 }
	return Dist{Mean: r(sum / float64(len(v))), Min: r(v[0]), P50: r(v[(len(v)-1)/2]), Max: r(v[len(v)-1])}
}

// Percentiles of a latency distribution in milliseconds.
type Percentiles struct {
	Samples uint64  `json:"samples"`
	Mean    float64 `json:"mean"`
	P50     float64 `json:"p50"`
	P90     float64 `json:"p90"`
	P99     float64 `json:"p99"`
	Max     float64 `json:"max"`
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e4) / 100 }

func percentilesOf(h *Histogram) Percentiles {
	return Percentiles{Samples: h.Count(), Mean: ms(h.Mean()), P50: ms(h.Quantile(0.5)),
		P90: ms(h.Quantile(0.9)), P99: ms(h.Quantile(0.99)), Max: ms(h.Quantile(1))}
}

// Summary is the report of a whole run (the JSON twload prints).
type Summary struct {
	Server    string  `json:"server"`
	Clients   int     `json:"clients"`
	Pattern   string  `json:"pattern"`
	Seed      uint64  `json:"seed"`
	RampUpS   float64 `json:"ramp_up_s"`
	DurationS float64 `json:"duration_s"`
	Sources   int     `json:"source_addrs"`
	Proto     string  `json:"proto"` // 07, 06 or mix
	Clients6  int     `json:"clients_06"`

	Connected int `json:"connected"`
	Failed    int `json:"failed"`
	// Left counts the clients that left before the end as planned
	// (RunConfig.LeaveAt); they count as connected when they got in.
	Left         int            `json:"left,omitempty"`
	Failures     map[string]int `json:"failures"`
	MapDownloads int            `json:"map_downloads"`

	CRCErrors    int64  `json:"crc_errors"`
	DeltaErrors  int64  `json:"delta_errors"`
	NoBase       int64  `json:"no_base"`
	BadItems     int64  `json:"bad_items"`
	BadMessages  int64  `json:"bad_messages"`
	UnknownMsgs  int64  `json:"unknown_msgs"`
	LateInputs   int64  `json:"late_inputs"`
	LateOwn      int64  `json:"late_own"` // of LateInputs: sent late by the client itself
	Snapshots    int64  `json:"snapshots"`
	FirstBadNote string `json:"first_bad_error,omitempty"`

	SnapsPerSec   Dist `json:"snapshots_per_sec_per_client"`
	BytesInPerSec Dist `json:"rx_bytes_per_sec_per_client"`
	// BytesPerSnap is, per client, its in-game received bytes (everything:
	// snapshots, timing, messages, headers) per snapshot it received: the
	// bytes a snapshot costs, whatever the snapshot rate.
	BytesPerSnap Dist `json:"rx_bytes_per_snapshot_per_client"`
	// Rx is the in-game received traffic of the clients that entered,
	// summed, by message kind; InGameSeconds is their in-game time summed
	// (Rx's fields over it are per client per second). CharsPerSnap is,
	// per client, the characters in view per snapshot (the game state
	// behind the snapshot bytes: runs with more tees in view send more).
	CharsPerSnap     Dist        `json:"chars_in_view_per_snapshot"`
	Rx               RxBreakdown `json:"rx_breakdown"`
	InGameSeconds    float64     `json:"in_game_client_seconds"`
	BytesOutPerSec   Dist        `json:"tx_bytes_per_sec_per_client"`
	PacketsInPerSec  Dist        `json:"rx_packets_per_sec_per_client"`
	PacketsOutPerSec Dist        `json:"tx_packets_per_sec_per_client"`
	ConnectMs        Dist        `json:"connect_ms"`
	InputLeadMs      Dist        `json:"input_lead_ms"` // mean INPUTTIMING time left
	LatencyMs        Percentiles `json:"input_to_snapshot_latency_ms"`
	InputsPerSec     Dist        `json:"inputs_per_sec_per_client"`
	SkippedInputs    int64       `json:"skipped_inputs"`
	// InputDelayMs is how late INPUTs left after their scheduled time.
	InputDelayMs Percentiles `json:"input_send_delay_ms"`
	// SnapSpacingMs is how much longer than their tick interval consecutive
	// snapshots took to arrive (see Stats.SnapSpacing): the server's tick
	// lateness as the clients see it.
	SnapSpacingMs Percentiles `json:"snapshot_spacing_late_ms"`
	// SnapGaps is the total of Stats.SnapGaps.
	SnapGaps int64 `json:"snapshot_gaps"`
	// TickBacks is the total of Stats.TickBacks: 0 when the game's tick
	// ran on without a restart for every client.
	TickBacks int64 `json:"tick_backs"`
	// MaxSnapIntervalMs is the largest Stats.MaxSnapInterval of the
	// clients, in milliseconds.
	MaxSnapIntervalMs float64 `json:"max_snapshot_interval_ms"`
	// ServerSnapsPerSec is the rate of distinct snapshot ticks any client
	// received: the rate the server actually produced snapshots at.
	ServerSnapsPerSec float64 `json:"server_snapshots_per_sec"`
	// SnapCoverage is, per client, the share of those ticks (between its
	// first and last snapshot) that it received itself.
	SnapCoverage Dist `json:"snapshot_coverage"`
	// SnapsPerServerSec is, per client, its snapshots per second of server
	// time (ticks between its first and last snapshot): what the server
	// delivered, even when this process was too starved to read on time.
	SnapsPerServerSec Dist `json:"snapshots_per_server_sec_per_client"`
	// SnapSpanShare is, per client, the server time between its first and
	// last snapshot over its in-game time (about 1; less when snapshots
	// stopped coming early or were still unread at the end).
	SnapSpanShare Dist `json:"snapshot_span_share"`

	// Netem describes the impairment of the run (empty: none); Injected is
	// what it did, summed over the clients, per direction.
	Netem    string `json:"netem,omitempty"`
	Injected struct {
		Up   LinkStats `json:"up"`
		Down LinkStats `json:"down"`
	} `json:"injected"`
	// MapDownloadMs is, over the clients that downloaded the map, how long
	// the download took.
	MapDownloadMs Dist `json:"map_download_ms"`
	// TooWeak and Timeouts count the failures whose reason names a "too
	// weak connection" (either side gave up on unacknowledged data) or a
	// timeout (the peer went silent for 10 s).
	TooWeak  int `json:"too_weak_drops"`
	Timeouts int `json:"timeouts"`
	// BlackoutInGame is the number of clients in game before the blackout,
	// BlackoutRecovered how many of them received a verified snapshot after
	// it, BlackoutRecoveryMs how long after its end that took.
	BlackoutInGame     int  `json:"blackout_in_game"`
	BlackoutRecovered  int  `json:"blackout_recovered"`
	BlackoutRecoveryMs Dist `json:"blackout_recovery_ms"`
	// Targets holds each server's own summary when one process loaded
	// several (RunMany); the fields above then cover all their clients.
	Targets []Summary `json:"targets,omitempty"`
	// LoadCPUPct is the load generator's own CPU time (user+system) over
	// the run, in % of one core, and LoadCPUPctPerClient that per client
	// (set by cmd/twload).
	LoadCPUPct          float64 `json:"twload_cpu_pct,omitempty"`
	LoadCPUPctPerClient float64 `json:"twload_cpu_pct_per_client,omitempty"`

	PerClient []Stats `json:"per_client,omitempty"`
}

// OK reports whether every client entered the game and no snapshot or
// message failed its checks.
func (s *Summary) OK() bool {
	return s.Failed == 0 && s.Connected == s.Clients && s.CRCErrors == 0 && s.DeltaErrors == 0 && s.BadMessages == 0 && s.BadItems == 0
}

// Summarize aggregates per-client stats.
func Summarize(stats []Stats) Summary {
	s := Summary{Clients: len(stats), Failures: map[string]int{}}
	var snaps, bin, bout, pin, pout, conn, lead, bps, cps []float64
	var lat, delay, spacing Histogram
	var inputs, mapt, recov []float64
	for i := range stats {
		st := &stats[i]
		s.Injected.Up.add(&st.NetUp)
		s.Injected.Down.add(&st.NetDown)
		if st.MapDownloads > 0 {
			mapt = append(mapt, float64(st.MapTime)/1e6)
		}
		if st.BlackoutInGame {
			s.BlackoutInGame++
			if st.BlackoutRecovery >= 0 {
				s.BlackoutRecovered++
				recov = append(recov, float64(st.BlackoutRecovery)/1e6)
			}
		}
		if f := strings.ToLower(st.Failure); f != "" {
			if strings.Contains(f, "too weak") {
				s.TooWeak++
			}
			if strings.Contains(f, "timeout") || strings.Contains(f, "timed out") {
				s.Timeouts++
			}
		}
		if st.Proto == "0.6" {
			s.Clients6++
		}
		if st.Left {
			s.Left++
		}
		if st.Entered {
			s.Connected++
			inputs = append(inputs, st.Rate(st.Inputs))
			snaps = append(snaps, st.Rate(st.Snapshots))
			bin = append(bin, st.Rate(st.BytesIn))
			if st.Snapshots > 0 {
				bps = append(bps, float64(st.BytesIn)/float64(st.Snapshots))
				cps = append(cps, float64(st.CharsInView)/float64(st.Snapshots))
			}
			s.Rx.add(&st.Rx)
			s.InGameSeconds += st.InGame.Seconds()
			bout = append(bout, st.Rate(st.BytesOut))
			pin = append(pin, st.Rate(st.PacketsIn))
			pout = append(pout, st.Rate(st.PacketsOut))
			conn = append(conn, float64(st.ConnectTime)/1e6)
			if st.Timings > 0 {
				lead = append(lead, float64(st.TimeLeftSum)/float64(st.Timings))
			}
		}
		if st.Failure != "" {
			s.Failed++
			s.Failures[st.Failure]++
		}
		s.MapDownloads += st.MapDownloads
		s.CRCErrors += st.CRCErrors
		s.DeltaErrors += st.DeltaErrors
		s.NoBase += st.NoBase
		s.BadMessages += st.BadMessages
		s.BadItems += st.BadItems
		s.UnknownMsgs += st.UnknownMsgs
		s.LateInputs += st.LateInputs
		s.LateOwn += st.LateOwn
		s.Snapshots += st.Snapshots
		if s.FirstBadNote == "" && st.FirstBadError != "" {
			s.FirstBadNote = st.FirstBadError
		}
		lat.Merge(&st.Latency)
		delay.Merge(&st.SendDelay)
		spacing.Merge(&st.SnapSpacing)
		s.SnapGaps += st.SnapGaps
		s.TickBacks += st.TickBacks
		s.MaxSnapIntervalMs = max(s.MaxSnapIntervalMs, float64(st.MaxSnapInterval)/float64(time.Millisecond))
		s.SkippedInputs += st.SkippedInputs
	}
	s.InputsPerSec = distOf(inputs)
	s.InputDelayMs = percentilesOf(&delay)
	s.SnapsPerSec = distOf(snaps)
	s.BytesInPerSec = distOf(bin)
	s.BytesPerSnap = distOf(bps)
	s.CharsPerSnap = distOf(cps)
	s.InGameSeconds = math.Round(s.InGameSeconds*1000) / 1000
	s.BytesOutPerSec = distOf(bout)
	s.PacketsInPerSec = distOf(pin)
	s.PacketsOutPerSec = distOf(pout)
	s.ConnectMs = distOf(conn)
	s.InputLeadMs = distOf(lead)
	s.LatencyMs = percentilesOf(&lat)
	s.SnapSpacingMs = percentilesOf(&spacing)
	s.MapDownloadMs = distOf(mapt)
	s.BlackoutRecoveryMs = distOf(recov)
	return s
}

// addCoverage fills ServerSnapsPerSec and SnapCoverage from the ticks all
// clients received.
func (s *Summary) addCoverage(ticks *TickSet) {
	var cov, rate, share []float64
	lo, hi := int32(-1), int32(-1)
	for i := range s.PerClient {
		st := &s.PerClient[i]
		if !st.Entered || st.FirstSnapTick < 0 {
			continue
		}
		if span := st.SnapSpan(); span > 0 && st.InGame > 0 {
			rate = append(rate, st.SnapRateServerTime())
			share = append(share, span.Seconds()/st.InGame.Seconds())
		}
		if all := ticks.Count(st.FirstSnapTick, st.LastSnapTick); all > 0 {
			cov = append(cov, min(float64(st.Snapshots)/float64(all), 1))
		}
		if lo < 0 || st.FirstSnapTick < lo {
			lo = st.FirstSnapTick
		}
		hi = max(hi, st.LastSnapTick)
	}
	s.SnapCoverage = distOf(cov)
	s.SnapsPerServerSec = distOf(rate)
	s.SnapSpanShare = distOf(share)
	if n := ticks.Count(lo, hi); n > 1 && hi > lo {
		secs := float64(hi-lo) * netproto.TickDuration.Seconds()
		s.ServerSnapsPerSec = math.Round(float64(n-1)/secs*100) / 100
	}
}

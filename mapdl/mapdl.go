package mapdl

import (
	"time"

	"twserver/netproto"
)

// ChunkSize is the size of one 0.7 MAP_DATA chunk (the reference MAP_CHUNK_SIZE).
const ChunkSize = netproto.MapChunkSize

// Map download under loss. The 0.7 client asks for map_download_speed
// chunks at a time (REQUEST_MAP_DATA, flushed at once, after each that
// many chunks received in order) and, like every 0.7 peer, drops vital
// chunks that arrive out of order. Between requests it sends nothing: the
// RESEND flag of a gap, the chunks it resends at the server's RESEND flag
// and its acks go out with its next request or after FlushInterval (500
// ms) of idle sending, its own resends after a second. So a lost chunk
// stalls the reference's download for 0.5-1 s, a lost request too. The
// server does not wait for that (README "Loss and jitter"):
//   - it paces the download on the client's acks, not on its requests:
//     the ack of any packet tells how many chunks the client holds in
//     order and so which requests it sent, delivered or lost (a request
//     after a lost one arrives as a gap and is dropped, but its ack
//     counts), and up to Lookahead chunks beyond go out while fewer
//     than MaxInFlight vital chunks are unacknowledged;
//   - a tail-loss probe: when the oldest unacknowledged chunk went out
//     more than a retransmission timeout ago (round trip plus deviation,
//     see Download.ProbeTimeout), every unacknowledged chunk goes out again
//     (the client drops those it has as duplicates and asks on once the
//     missing one arrives), the timeout doubling while nothing is acked;
//   - once the connection saw loss, each vital chunk goes out twice, and
//     three times under heavy loss (see HeavyLossChunks;
//     netproto.Conn.SetCopies), until the client is in game.
const (
	// Lookahead is how many chunks beyond those the client asked for
	// (by its requests or, as inferred from its acks, by the requests it
	// sent) the server sends, while fewer than MaxInFlight vital chunks
	// are unacknowledged: the download never waits for a request.
	Lookahead = 32
	// MaxInFlight bounds the unacknowledged vital chunks beyond which
	// no lookahead chunk is sent: 32 chunks (44 KiB) are four requests of
	// the default map_download_speed, so the download goes on through
	// three lost requests in a row. Map chunks are kept for resending by
	// reference to the loaded map (netproto.Conn.SendRef), outside the
	// connection's 32 KiB resend buffer.
	MaxInFlight = 32
	// ProbeBatch is how many chunks (times their copies, at most 3)
	// a tail-loss probe resends before the datagrams are written out, so
	// that the connection's outbox (netproto.OutboxPackets) never
	// overflows.
	ProbeBatch = 16
	// StallProbe is how long a connecting client's download may go
	// without a request before the server sends the RESEND flag
	// (Download.Probe): the client's request may have been lost, and the
	// client resends it with its next packet. Once the connection saw
	// loss, also every StallProbe until it is in game (READY, start
	// info and ENTERGAME are lone vital messages). One small datagram per
	// StallProbe.
	StallProbe = 20 * time.Millisecond
	// ProbeMargin is the least retransmission timeout beyond the
	// smoothed round trip (the timer runs at the ticks, so the effective
	// timeout is a tick longer at most).
	ProbeMargin = 5 * time.Millisecond
	// ProbeInitial is the retransmission timeout before the first round
	// trip sample.
	ProbeInitial = 250 * time.Millisecond
	// ProbeMax caps the retransmission timeout as it doubles while
	// nothing is acknowledged: at most MaxInFlight chunks (times their
	// copies) per ProbeMax for a client that stopped acknowledging,
	// until the pre-game timeouts drop it.
	ProbeMax = time.Second
	// HeavyLossChunks: a download that needed more than two tail-loss
	// probes and at least one per this many new chunks (at two copies
	// each) sends three copies of each chunk from then on (heavy loss:
	// about 10 % or more per datagram). A download sends at most netproto.MaxCopies times the
	// map's chunks new, plus the probes' resends.
	HeavyLossChunks = 100
)

// Download is one client's 0.7 map download, a value its slot holds:
// how far it went, what the client asked for and the tail-loss probe's
// state. The zero value is no download; Start begins one.
type Download struct {
	// Chunk is the next chunk to send (0.6: the requests answered since
	// MAP_CHANGE).
	Chunk int
	// Asked is how many chunks the client asked for so far (0.6: one past
	// the highest chunk requested).
	Asked int
	// SentAt is when the last chunk or stall probe went out.
	SentAt time.Duration
	// Probes counts the tail-loss probes in this download.
	Probes int

	backoff    int           // probes since the peer's ack last moved
	probedAt   time.Duration // when the last probe went out
	ackSeen    uint16        // the peer's ack at the last tick
	changeSent time.Duration // when MAP_CHANGE went out
}

// Start begins a download at MAP_CHANGE sent at now to a peer whose ack
// is ack; SentAt is kept (the stall probe's clock runs on).
func (d *Download) Start(now time.Duration, ack uint16) {
	*d = Download{SentAt: d.SentAt, changeSent: now, ackSeen: ack}
}

// Chunks is how many chunks a map of size bytes has.
func Chunks(size int) int { return (size + ChunkSize - 1) / ChunkSize }

// ProbeTimeout is the retransmission timeout of the tail-loss probe on
// conn: the smoothed round trip plus four deviations, at most one more
// round trip (an ack that came with a request after a lost one makes a
// long sample) and at least ProbeMargin; ProbeInitial before the
// first sample, doubled per probe since the client's ack last moved, at
// most ProbeMax.
func (d *Download) ProbeTimeout(conn *netproto.Conn) time.Duration {
	rto := ProbeInitial
	if srtt, rttvar, ok := conn.RTT(); ok {
		rto = srtt + max(min(4*rttvar, srtt), ProbeMargin)
	}
	return min(rto<<min(d.backoff, 8), ProbeMax)
}

// Copies is how many times each vital chunk goes out on conn during the
// download: once on a clean connection, twice once it saw loss, three
// times under heavy loss (see HeavyLossChunks).
func (d *Download) Copies(conn *netproto.Conn) int {
	st := &conn.Stats
	switch {
	case st.ChunksResent == 0 && st.Gaps == 0:
		return 1
	case d.Probes > 2 && d.Probes*HeavyLossChunks >= d.Chunk:
		return 3
	}
	return 2
}

// Sender is the loop's side of the downloads: how it writes out a client's
// queued datagrams and hears of a failed send. The game loop implements it
// (with a pointer, so that handing it over does not allocate).
type Sender interface {
	// Flush writes out the queued datagrams of client cid.
	Flush(cid int)
	// SendFailed is told of a chunk client cid's connection refused.
	SendFailed(cid int, err error)
}

// Tail resends conn's unacknowledged vital chunks when the oldest went
// out a retransmission timeout ago (see ProbeTimeout), ProbeBatch at a
// time with out.Flush between (cid is the client for out); it reports whether it probed and when the
// oldest went out.
func (d *Download) Tail(cid int, conn *netproto.Conn, now time.Duration, out Sender) (sent time.Duration, probed bool) {
	if ack := conn.PeerAck(); ack != d.ackSeen {
		d.ackSeen, d.backoff = ack, 0
	}
	sent, ok := conn.OldestUnackedSent()
	if !ok || now-sent < d.ProbeTimeout(conn) {
		return sent, false
	}
	d.Probes++
	d.backoff++
	d.probedAt = now
	conn.SetCopies(d.Copies(conn))
	for from := 0; from < conn.ResendUnacked(now, from, ProbeBatch); from += ProbeBatch {
		out.Flush(cid)
	}
	return sent, true
}

// Backoff is how many probes went out since the client's ack last moved.
func (d *Download) Backoff() int { return d.backoff }

// Send sends the chunks of data (the map) the client may have now: those
// it asked for (request counts from delivered requests, and as inferred
// from its acks: the 0.7 client asks after each cpr chunks received in
// order) plus Lookahead, while fewer than MaxInFlight vital chunks
// are unacknowledged; the chunk reaching the end of the map is the last
// one. request: called for a delivered REQUEST_MAP_DATA (else from the
// tick). Requests after the end send nothing, so a map costs at most
// netproto.MaxCopies times its chunks new per download, however many
// requests a client sends. pk is a scratch packer, cid the client for out.
func (d *Download) Send(cid int, conn *netproto.Conn, data []byte, cpr int, request bool, now time.Duration, pk *netproto.Packer, out Sender) {
	total := Chunks(len(data))
	if request {
		d.Asked = min(d.Asked+cpr, total)
	}
	if d.Chunk > 0 {
		// the chunks acknowledged in order (other vital messages still
		// unacknowledged make this an underestimate)
		held := max(d.Chunk-conn.Unacked(), 0)
		d.Asked = max(d.Asked, min((held/cpr+1)*cpr, total))
	}
	conn.SetCopies(d.Copies(conn)) // until in game
	for d.Chunk < total {
		if d.Chunk >= d.Asked+Lookahead || conn.Unacked() >= MaxInFlight {
			return
		}
		off := d.Chunk * ChunkSize
		end := min(off+ChunkSize, len(data))
		pk.Reset()
		pk.AddMsgHeader(netproto.NetmsgMapData, true)
		if err := conn.SendRef(now, pk.Bytes(), data[off:end], netproto.SendFlush); err != nil {
			if conn.State() != netproto.StateError {
				out.SendFailed(cid, err)
			}
			return
		}
		if conn.Pending() >= netproto.OutboxPackets/2 {
			out.Flush(cid) // room for the next chunks' copies
		}
		d.SentAt = now
		d.Chunk++
	}
}

// WaitedForRequest reports whether a probe timeout passed since
// MAP_CHANGE went out to conn's client at now.
func (d *Download) WaitedForRequest(conn *netproto.Conn, now time.Duration) bool {
	return now-d.changeSent >= d.ProbeTimeout(conn)
}

// Tick runs every tick for a 0.7 client on its way into the game,
// downloading (connecting) or READY: the tail-loss probe of its
// unacknowledged vital chunks (map chunks and the lone messages of the way
// in, Tail), the ack-paced refill of its download (Send of data with cpr
// chunks per request; a first window when no request came within
// WaitedForRequest), and the RESEND flag when its download went
// StallProbe without a request and, once the connection saw loss, every
// StallProbe until it is in game. It returns what Tail returned.
func (d *Download) Tick(cid int, conn *netproto.Conn, connecting bool, data []byte, cpr int, now time.Duration, pk *netproto.Packer, out Sender) (sent time.Duration, probed bool) {
	sent, probed = d.Tail(cid, conn, now, out)
	total := Chunks(len(data))
	if connecting && d.Chunk < total {
		if d.Asked == 0 && d.WaitedForRequest(conn, now) {
			// no request yet: the first one may be lost, the client
			// resends it only after FlushInterval; start the first window
			d.Asked = min(cpr, total)
		}
		if d.Asked > 0 {
			d.Send(cid, conn, data, cpr, false, now, pk, out)
		}
	}
	if now-d.SentAt < StallProbe {
		return sent, probed
	}
	lossy := conn.Stats.ChunksResent > 0 || conn.Stats.Gaps > 0
	if connecting {
		downloading := d.Asked > 0 && d.Chunk < total
		if !downloading && !(lossy && d.Chunk >= total) {
			return sent, probed
		}
	} else if !lossy {
		return sent, probed
	}
	d.SentAt = now
	conn.AskResend(now)
	return sent, probed
}

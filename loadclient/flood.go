package loadclient

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/ipv4"

	"twserver/netproto"
)

// FloodKind is one kind of unverified packet a flood sends.
type FloodKind int

// Flood kinds: padded 0.7 token requests (answered by a server within its
// budget), CONNECTs carrying a wrong token, connless server-info requests
// carrying a wrong token, and random bytes of random length.
const (
	FloodToken FloodKind = iota
	FloodConnect
	FloodInfo
	FloodGarbage
	numFloodKinds
)

// FloodKinds names the flood kinds in index order.
var FloodKinds = [numFloodKinds]string{"token", "connect", "info", "garbage"}

// Bounds of a flood run (twload flood).
const (
	// MaxFloodRate bounds the packets per second of a flood.
	MaxFloodRate = 1_000_000
	// MaxFloodDuration bounds the length of a flood.
	MaxFloodDuration = 10 * time.Minute
	// MaxFloodSources bounds the source addresses (one socket each).
	MaxFloodSources = 10000
	// MaxFloodSenders bounds the sending goroutines.
	MaxFloodSenders = 16
	// floodBatch is the number of datagrams one sendmmsg call carries.
	floodBatch = 64
	// floodGarbageMax is the longest garbage datagram.
	floodGarbageMax = 1400
)

// DefaultFloodSourceBase is the first source address of a flood.
var DefaultFloodSourceBase = netip.AddrFrom4([4]byte{127, 20, 0, 1})

// FloodConfig describes a flood: Rate packets per second for Duration from
// Sources loopback addresses (SourceBase, SourceBase+1, ...), the kinds mixed
// by Weights, sent by Senders goroutines with sendmmsg batches.
type FloodConfig struct {
	Server     netip.AddrPort
	Rate       int
	Duration   time.Duration
	Sources    int
	SourceBase netip.Addr
	Weights    [numFloodKinds]int
	Senders    int
	Seed       uint64
	// Live, when set, counts the datagrams sent so far (for a status line).
	Live *atomic.Uint64
}

// ParseFloodWeights parses "token=1,connect=1,info=1,garbage=1" (kinds left
// out weigh 0; an empty string weighs every kind 1).
func ParseFloodWeights(s string) ([numFloodKinds]int, error) {
	var w [numFloodKinds]int
	if s == "" {
		return [numFloodKinds]int{1, 1, 1, 1}, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(part, "=")
		if !ok {
			val = "1"
		}
		k := -1
		for i, n := range FloodKinds {
			if n == strings.TrimSpace(name) {
				k = i
			}
		}
		n, err := strconv.Atoi(val)
		if k < 0 || err != nil || n < 0 || n > 1000 {
			return w, fmt.Errorf("bad flood kind weight %q (kinds: %s; weights 0..1000)", part, strings.Join(FloodKinds[:], ", "))
		}
		w[k] = n
	}
	return w, nil
}

// Validate checks the configuration: loopback only, bounded rate, time and sources.
func (fc *FloodConfig) Validate() error {
	if !fc.SourceBase.IsValid() {
		fc.SourceBase = DefaultFloodSourceBase
	}
	if fc.Senders == 0 {
		fc.Senders = 4
	}
	total := 0
	for _, w := range fc.Weights {
		total += w
	}
	switch {
	case !fc.Server.IsValid() || !fc.Server.Addr().Is4() || !fc.Server.Addr().IsLoopback():
		return errors.New("flood: the server must be an IPv4 loopback address")
	case !fc.SourceBase.Is4() || !fc.SourceBase.IsLoopback():
		return errors.New("flood: the source base must be an IPv4 loopback address (127.x.y.z)")
	case fc.Rate < 1 || fc.Rate > MaxFloodRate:
		return fmt.Errorf("flood: rate must be 1..%d packets/s", MaxFloodRate)
	case fc.Duration <= 0 || fc.Duration > MaxFloodDuration:
		return fmt.Errorf("flood: duration must be in (0, %v]", MaxFloodDuration)
	case fc.Sources < 1 || fc.Sources > MaxFloodSources:
		return fmt.Errorf("flood: sources must be 1..%d", MaxFloodSources)
	case fc.Senders < 1 || fc.Senders > MaxFloodSenders || fc.Senders > fc.Sources:
		return fmt.Errorf("flood: senders must be 1..%d and at most the sources", MaxFloodSenders)
	case total == 0:
		return errors.New("flood: every kind weighs 0")
	}
	b := fc.SourceBase.As4()
	if uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3])+uint32(fc.Sources) > 1<<24 {
		return errors.New("flood: the source addresses leave 127.0.0.0/8")
	}
	return nil
}

// FloodSummary is the report of a flood.
type FloodSummary struct {
	Server    string            `json:"server"`
	Sources   int               `json:"sources"`
	Senders   int               `json:"senders"`
	RatePPS   int               `json:"target_pps"`
	DurationS float64           `json:"duration_s"`
	Sent      map[string]uint64 `json:"sent"` // datagrams by kind
	SentTotal uint64            `json:"sent_total"`
	SentBytes uint64            `json:"sent_bytes"`
	// AchievedPPS is SentTotal over the measured sending time.
	AchievedPPS float64 `json:"achieved_pps"`
	SendErrors  uint64  `json:"send_errors"`
}

// floodSender is one sending goroutine: its sockets (one per source
// address) and a batch of reusable messages.
type floodSender struct {
	socks  []*ipv4.PacketConn
	raw    []*net.UDPConn
	msgs   []ipv4.Message
	bufs   [][]byte
	rng    *rand.Rand
	cum    [numFloodKinds]int // cumulative weights
	junk   []byte
	sent   [numFloodKinds]atomic.Uint64
	bytes  atomic.Uint64
	errs   atomic.Uint64
	server *net.UDPAddr
	live   *atomic.Uint64 // FloodConfig.Live
}

// fill writes one datagram of a random kind into buf and returns it with its kind.
func (f *floodSender) fill(buf []byte) ([]byte, FloodKind) {
	r := f.rng.IntN(f.cum[numFloodKinds-1])
	k := FloodKind(0)
	for r >= f.cum[k] {
		k++
	}
	tok := func() netproto.Token { return netproto.Token(f.rng.Uint32() | 1) }
	switch k {
	case FloodToken:
		return netproto.AppendTokenRequest(buf[:0], tok()), k
	case FloodConnect:
		return netproto.AppendConnect(buf[:0], tok(), tok()), k
	case FloodInfo:
		b := netproto.AppendConnless(buf[:0], netproto.ConnlessHeader{Token: tok(), ResponseToken: tok()}, nil)
		b = append(b, "\xff\xff\xff\xffgie3"...)
		return append(b, byte(f.rng.IntN(64))), k
	default:
		n := 1 + f.rng.IntN(floodGarbageMax)
		off := f.rng.IntN(len(f.junk) - n)
		return append(buf[:0], f.junk[off:off+n]...), k
	}
}

// RunFlood sends the flood and returns its summary. Replies from the
// server are not read (the kernel drops them when a socket's buffer fills).
func RunFlood(ctx context.Context, fc FloodConfig) (FloodSummary, error) {
	if err := fc.Validate(); err != nil {
		return FloodSummary{}, err
	}
	server := net.UDPAddrFromAddrPort(fc.Server)
	senders := make([]*floodSender, fc.Senders)
	defer func() {
		for _, f := range senders {
			if f == nil {
				continue
			}
			for _, c := range f.raw {
				c.Close()
			}
		}
	}()
	base := fc.SourceBase.As4()
	baseN := uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3])
	for w := range senders {
		f := &floodSender{server: server, live: fc.Live, rng: rand.New(rand.NewPCG(fc.Seed, uint64(w)+1))}
		sum := 0
		for k, x := range fc.Weights {
			sum += x
			f.cum[k] = sum
		}
		f.junk = make([]byte, 1<<16)
		for i := range f.junk {
			f.junk[i] = byte(f.rng.Uint32())
		}
		for i := w; i < fc.Sources; i += fc.Senders {
			n := baseN + uint32(i)
			src := net.IPv4(127, byte(n>>16), byte(n>>8), byte(n))
			c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: src})
			if err != nil {
				return FloodSummary{}, fmt.Errorf("flood: socket for %v: %w", src, err)
			}
			_ = c.SetReadBuffer(4096) // replies are not read
			f.raw = append(f.raw, c)
			f.socks = append(f.socks, ipv4.NewPacketConn(c))
		}
		f.msgs = make([]ipv4.Message, floodBatch)
		f.bufs = make([][]byte, floodBatch)
		for i := range f.msgs {
			f.bufs[i] = make([]byte, 0, netproto.MaxPacketSize+64)
			f.msgs[i].Buffers = [][]byte{nil}
			f.msgs[i].Addr = server
		}
		senders[w] = f
	}
	runCtx, cancel := context.WithTimeout(ctx, fc.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	per := float64(fc.Rate) / float64(fc.Senders)
	for _, f := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.run(runCtx, start, per)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	s := FloodSummary{Server: fc.Server.String(), Sources: fc.Sources, Senders: fc.Senders, RatePPS: fc.Rate,
		DurationS: elapsed.Seconds(), Sent: map[string]uint64{}}
	for _, f := range senders {
		for k := range f.sent {
			n := f.sent[k].Load()
			s.Sent[FloodKinds[k]] += n
			s.SentTotal += n
		}
		s.SentBytes += f.bytes.Load()
		s.SendErrors += f.errs.Load()
	}
	if elapsed > 0 {
		s.AchievedPPS = float64(s.SentTotal) / elapsed.Seconds()
	}
	return s, nil
}

// run sends batches on an absolute schedule of perSec packets per second
// until ctx is done; each batch goes out from the next socket in turn.
func (f *floodSender) run(ctx context.Context, start time.Time, perSec float64) {
	var sent int64
	next := 0
	var kinds [floodBatch]FloodKind
	for ctx.Err() == nil {
		due := int64(time.Since(start).Seconds() * perSec)
		if due-sent < floodBatch/4 {
			time.Sleep(time.Millisecond)
			continue
		}
		n := int(min(due-sent, floodBatch))
		for i := range n {
			b, k := f.fill(f.bufs[i])
			f.bufs[i] = b
			f.msgs[i].Buffers[0] = b
			kinds[i] = k
		}
		sock := f.socks[next]
		next = (next + 1) % len(f.socks)
		done := 0
		for done < n {
			m, err := sock.WriteBatch(f.msgs[done:n], 0)
			if err != nil {
				f.errs.Add(1)
				break
			}
			done += m
		}
		var nbytes uint64
		for i := range done {
			f.sent[kinds[i]].Add(1)
			nbytes += uint64(len(f.bufs[i]))
		}
		f.bytes.Add(nbytes)
		if f.live != nil {
			f.live.Add(uint64(done))
		}
		sent += int64(n) // a failed batch counts against the schedule too (no catch-up storm)
	}
}

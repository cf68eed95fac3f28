package capturetest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"twserver/internal/pcap"
	"twserver/netproto"
)

// clientPace is what a real client sends while in game, measured from a
// capture: how often it sends INPUT, which snapshot each INPUT acknowledges,
// and what else it sends. docs/load-testing.md ("What real clients send")
// quotes these figures; loadclient's default pace follows them.
type clientPace struct {
	span         time.Duration // first to last INPUT
	inputs       int
	sameInput    int           // INPUTs whose 10 ints equal the previous INPUT's
	sameMinGap   float64       // ms: the shortest gap before an unchanged INPUT
	gaps         []float64     // ms between consecutive INPUT packets
	tickSteps    map[int32]int // intended tick minus the previous INPUT's
	ackLag       map[int32]int // newest snapshot tick received minus the INPUT's ack tick, in ticks
	ackMinus1    int           // INPUTs acknowledging -1 (asking for a full snapshot)
	inputSizes   map[int]int   // UDP payload bytes of packets carrying an INPUT
	otherPackets map[string]int
	snaps        int   // snapshot messages received during the span
	snapGapMax   int32 // largest tick gap between consecutive snapshots received
	// inputsInGap counts INPUTs sent while no snapshot had arrived for
	// more than 100 ms, and ackStale how many of them acknowledged the
	// last snapshot that did arrive (the client keeps acknowledging it).
	inputsInGap, ackStale int
}

func (p *clientPace) String() string {
	var b strings.Builder
	s := p.span.Seconds()
	g := slices.Clone(p.gaps)
	slices.Sort(g)
	q := func(f float64) float64 { return g[int(f*float64(len(g)-1))] }
	fmt.Fprintf(&b, "inputs %d over %.2f s = %.1f/s; unchanged %d (%.0f %%, shortest gap before one %.1f ms); gap ms p10 %.1f median %.1f p90 %.1f max %.1f\n",
		p.inputs, s, float64(p.inputs)/s, p.sameInput, 100*float64(p.sameInput)/float64(p.inputs), p.sameMinGap, q(0.1), q(0.5), q(0.9), g[len(g)-1])
	fmt.Fprintf(&b, "intended-tick steps %v; ack lag (ticks behind the newest snapshot) %v; ack -1: %d\n", p.tickSteps, p.ackLag, p.ackMinus1)
	fmt.Fprintf(&b, "INPUT packet sizes %v; other packets c->s %v\n", p.inputSizes, p.otherPackets)
	fmt.Fprintf(&b, "snapshots received %d (%.1f/s), largest tick gap %d; INPUTs sent >100 ms after the last snapshot %d, of them acking that snapshot %d",
		p.snaps, float64(p.snaps)/s, p.snapGapMax, p.inputsInGap, p.ackStale)
	return b.String()
}

// paceMsg is one message of a capture with what the pace needs.
type paceMsg struct {
	at         time.Time
	toServer   bool
	size       int // UDP payload of the datagram
	control    bool
	id         int32
	system     bool
	body       []byte
	firstChunk bool
}

// measurePace computes the pace of the client of a one-conversation capture
// from its messages (in capture order). snapIDs are the snapshot message ids
// of the protocol, input the INPUT id.
func measurePace(t *testing.T, msgs []paceMsg, input int32, snapIDs []int32) *clientPace {
	t.Helper()
	p := &clientPace{tickSteps: map[int32]int{}, ackLag: map[int32]int{}, inputSizes: map[int]int{}, otherPackets: map[string]int{}}
	var first, last, prev, lastSnapAt time.Time
	lastSnap, prevTick := int32(-1), int32(-1)
	var prevInts []int32
	for _, m := range msgs {
		if !m.toServer {
			if m.system && slices.Contains(snapIDs, m.id) {
				var u netproto.Unpacker
				u.Reset(m.body)
				tick := u.GetInt()
				if u.Err() == nil && tick > lastSnap {
					if lastSnap >= 0 && !first.IsZero() {
						p.snaps++
						p.snapGapMax = max(p.snapGapMax, tick-lastSnap)
					}
					lastSnap, lastSnapAt = tick, m.at
				}
			}
			continue
		}
		if m.control {
			if !first.IsZero() {
				p.otherPackets[fmt.Sprintf("control %d", m.id)]++
			}
			continue
		}
		if !m.system || m.id != input {
			if !first.IsZero() && m.firstChunk {
				p.otherPackets[fmt.Sprintf("msg %d sys=%v", m.id, m.system)]++
			}
			continue
		}
		var u netproto.Unpacker
		u.Reset(m.body)
		ack, tick, size := u.GetInt(), u.GetInt(), u.GetInt()
		ints := make([]int32, 0, 10)
		for range size / 4 {
			ints = append(ints, u.GetInt())
		}
		if u.Err() != nil {
			t.Fatalf("INPUT: %v", u.Err())
		}
		if first.IsZero() {
			first = m.at
		} else {
			p.gaps = append(p.gaps, float64(m.at.Sub(prev).Microseconds())/1000)
			p.tickSteps[tick-prevTick]++
			if slices.Equal(ints, prevInts) {
				gap := p.gaps[len(p.gaps)-1]
				if p.sameInput == 0 || gap < p.sameMinGap {
					p.sameMinGap = gap
				}
				p.sameInput++
			}
		}
		prev, last, prevTick, prevInts = m.at, m.at, tick, ints
		p.inputs++
		p.inputSizes[m.size]++
		if ack < 0 {
			p.ackMinus1++
		} else {
			p.ackLag[lastSnap-ack]++
		}
		if lastSnap >= 0 && m.at.Sub(lastSnapAt) > 100*time.Millisecond {
			p.inputsInGap++
			if ack == lastSnap {
				p.ackStale++
			}
		}
	}
	p.span = last.Sub(first)
	if p.inputs < 2 {
		t.Fatalf("%d INPUTs", p.inputs)
	}
	return p
}

// messages07 returns the messages of a 0.7 capture exchanged with the
// server (or proxy) on port, leaving out any datagram from or to notPeer
// (the proxy's own leg to the server).
func messages07(t *testing.T, name string, port, notPeer uint16) []paceMsg {
	var out []paceMsg
	var buf []byte
	for _, cp := range load07(t, name) {
		if netproto.IsConnless(cp.Payload) || (cp.Src.Port() != port && cp.Dst.Port() != port) ||
			cp.Src.Port() == notPeer || cp.Dst.Port() == notPeer {
			continue
		}
		cp.toServer = cp.Dst.Port() == port
		hdr, raw, err := netproto.ParsePacket(cp.Payload)
		if err != nil {
			t.Fatalf("packet %d: %v", cp.Index, err)
		}
		if hdr.Flags&netproto.FlagControl != 0 {
			id := int32(-1)
			if len(raw) > 0 {
				id = int32(raw[0])
			}
			out = append(out, paceMsg{at: cp.Time, toServer: cp.toServer, size: len(cp.Payload), control: true, id: id})
			continue
		}
		payload, err := netproto.DecodePayload(buf[:0], hdr, raw)
		if err != nil {
			t.Fatalf("packet %d: %v", cp.Index, err)
		}
		payload = slices.Clone(payload)
		out = appendChunks(t, out, cp.Time, cp.toServer, len(cp.Payload), payload, int(hdr.NumChunks), false)
	}
	return out
}

// messages6 returns the messages of the DDNet client ↔ DDNet-Server capture
// (0.6 with DDNet's token; server port 8304).
func messages6(t *testing.T, path string, serverPort uint16) []paceMsg {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := pcap.ReadUDP(data)
	if err != nil {
		t.Fatal(err)
	}
	var out []paceMsg
	for _, d := range pkts {
		if d.Dst.Addr() != loopback || netproto.IsConnless(d.Payload) {
			continue
		}
		h, p, err := netproto.ParsePacket6(d.Payload)
		if err != nil {
			t.Fatalf("packet %d: %v", d.Index, err)
		}
		toServer := d.Dst.Port() == serverPort
		if h.Flags&netproto.Flag6Control != 0 {
			id := int32(-1)
			if len(p) > 0 {
				id = int32(p[0])
			}
			out = append(out, paceMsg{at: d.Time, toServer: toServer, size: len(d.Payload), control: true, id: id})
			continue
		}
		if h.Flags&netproto.Flag6Token != 0 && len(p) >= 4 {
			p = p[:len(p)-4]
		}
		if h.Flags&netproto.Flag6Compression != 0 {
			if p, err = netproto.HuffmanDecompress(nil, p, netproto.MaxPayload); err != nil {
				t.Fatalf("packet %d: %v", d.Index, err)
			}
		}
		out = appendChunks(t, out, d.Time, toServer, len(d.Payload), p, int(h.NumChunks), true)
	}
	return out
}

func appendChunks(t *testing.T, out []paceMsg, at time.Time, toServer bool, size int, payload []byte, n int, six bool) []paceMsg {
	var cr netproto.ChunkReader
	if six {
		cr.Reset6(payload, n)
	} else {
		cr.Reset(payload, n)
	}
	firstChunk := true
	for c, ok := cr.Next(); ok; c, ok = cr.Next() {
		var u netproto.Unpacker
		u.Reset(c.Data)
		id, sys := u.GetMsgHeader()
		if u.Err() != nil {
			t.Fatalf("chunk header: %v", u.Err())
		}
		out = append(out, paceMsg{at: at, toServer: toServer, size: size, id: id, system: sys, body: u.Rest(), firstChunk: firstChunk})
		firstChunk = false
	}
	if err := cr.Err(); err != nil {
		t.Fatalf("chunks: %v", err)
	}
	return out
}

// snaps07 are the 0.7 snapshot message ids.
var snaps07 = []int32{netproto.NetmsgSnap, netproto.NetmsgSnapSingle, netproto.NetmsgSnapEmpty}

// TestRealClientPace measures the real clients' pace in the captures and
// checks the facts loadclient's default pace is built on: an INPUT goes out
// for a new predicted tick only (never two for one tick), at least every
// 40 ms (25 a second) even when nothing changed, each acknowledging the
// newest snapshot received; nothing but INPUTs while in game (their
// packets keep the connection alive). The real clients ran under Xvfb at
// whatever frame rate they reached, so their rate between 25 and 50 a
// second is the frame rate's, not a protocol constant.
func TestRealClientPace(t *testing.T) {
	cases := []struct {
		name   string
		msgs   func(t *testing.T) []paceMsg
		input  int32
		snaps  []int32
		ddnet  bool
		stalls bool // snapshots stall in this capture (latency proxy)
	}{
		{"session07", func(t *testing.T) []paceMsg { return messages07(t, "session07.pcap", 8303, 0) },
			netproto.NetmsgInput, snaps07, false, false},
		{"session07_crowd", func(t *testing.T) []paceMsg { return messages07(t, "session07_crowd.pcap", 8303, 0) },
			netproto.NetmsgInput, snaps07, false, false},
		{"session07_crowd_lag", func(t *testing.T) []paceMsg { return messages07(t, "session07_crowd_lag.pcap", 8303, 0) },
			netproto.NetmsgInput, snaps07, false, true},
		// the client's leg of the latency-cycling proxy (port 8302)
		{"crapnet07", func(t *testing.T) []paceMsg { return messages07(t, "crapnet07.pcap", 8302, 8303) },
			netproto.NetmsgInput, snaps07, false, true},
		{"sessionddnet", func(t *testing.T) []paceMsg { return messages6(t, "../../dialect6/testdata/sessionddnet.pcap", 8304) },
			netproto.Netmsg6Input, []int32{netproto.Netmsg6Snap, netproto.Netmsg6SnapSingle, netproto.Netmsg6SnapEmpty}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := measurePace(t, tc.msgs(t), tc.input, tc.snaps)
			t.Logf("%s", p)
			for _, e := range paceProblems(p) {
				t.Error(e)
			}
		})
	}
}

// paceProblems lists where p breaks the real clients' rules.
func paceProblems(p *clientPace) []string {
	var out []string
	if p.tickSteps[0] != 0 || p.tickSteps[-1] != 0 {
		out = append(out, fmt.Sprintf("two INPUTs for one intended tick or going back: steps %v", p.tickSteps))
	}
	if rate := float64(p.inputs) / p.span.Seconds(); rate > 25.5 {
		out = append(out, fmt.Sprintf("%.1f INPUTs/s with %d of %d unchanged, want at most 25.5", rate, p.sameInput, p.inputs))
	}
	// 3 ms for the capture's timestamps against the client's clock
	if p.sameInput < p.inputs/2 || p.sameMinGap < 37 {
		out = append(out, fmt.Sprintf("%d of %d INPUTs unchanged, the shortest gap before one %.1f ms: want most unchanged, none sooner than 37 ms",
			p.sameInput, p.inputs, p.sameMinGap))
	}
	return out
}

// TestPaceControl is the positive control of TestRealClientPace: a client
// that sends the same input every tick (twload's pace before PaceReal)
// breaks the rules the real clients keep.
func TestPaceControl(t *testing.T) {
	var msgs []paceMsg
	at := time.Unix(0, 0)
	for i := range 100 {
		var pk netproto.Packer
		pk.AddInt(int32(i))     // ack
		pk.AddInt(int32(i + 3)) // intended tick
		pk.AddInt(40)
		for range 10 {
			pk.AddInt(1)
		}
		msgs = append(msgs, paceMsg{at: at.Add(time.Duration(i) * 20 * time.Millisecond), toServer: true, size: 20,
			id: netproto.NetmsgInput, system: true, body: slices.Clone(pk.Bytes())})
	}
	if probs := paceProblems(measurePace(t, msgs, netproto.NetmsgInput, snaps07)); len(probs) != 2 {
		t.Errorf("problems %q, want the rate and the unchanged gap", probs)
	}
}

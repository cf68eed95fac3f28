package world

import (
	"net/netip"
	"os"
	"sort"
	"testing"
	"time"

	"twserver/internal/pcap"
	"twserver/netproto"
	"twserver/snap"
)

// This file reads sessions recorded between clients and the real 0.7.5
// server (testdata/*.pcap, the server leg on port 8303) for the replay in
// refsession_test.go: the clients' READY, ENTERGAME, inputs and disconnects
// with the ticks at which the reference server handled them (reconstructed
// from its INPUTTIMING replies), and every snapshot it sent. The replay
// feeds the actions into a World and compares every snapshot (and, where
// the server recorded one, every snapshot of its demo) with the World's
// snapshot for the same tick and viewer.

const refServerPort = 8303

// Message ids used by the replay (NETMSGTYPE_*).
const (
	svClientInfo = 18
	clStartInfo  = 27
)

type refInput struct {
	intended int32
	in       Input
	stamp    int32 // tick the input is applied as predicted input
	left     int32 // time_left of the server's INPUTTIMING reply, or noTiming
}

// noTiming marks an input the server did not answer with INPUTTIMING.
const noTiming = -1 << 30

type refClient struct {
	addr netip.AddrPort
	cid  int
	info PlayerInfo // from Cl_StartInfo
	// awaiting maps an intended tick to the input action expecting the
	// server's INPUTTIMING reply
	awaiting     map[int32]int
	lastIntended int32
	snaps        map[int32]*snap.Snapshot
	recv         *snap.Receiver
	ring         [200]struct { // the reference server's per-client input ring
		tick int32
		in   Input
	}
	head int
}

const (
	actReady = iota
	actEnter
	actInput
	actClose
)

type refAction struct {
	at    time.Time
	kind  int
	c     *refClient
	input refInput
	tick  int32 // server tick current when the action arrived
	// base is the likely arrival tick of an input; an undetermined one may
	// also have arrived at alt (flipped).
	base, alt             int32
	undetermined, flipped bool
}

type refSession struct {
	clients []*refClient
	actions []refAction
	tick0   time.Time // calibrated start of server tick 0
	last    int32     // last snapshot tick
}

// loadRefSession extracts the clients' actions and the snapshots.
func loadRefSession(t *testing.T, name string) *refSession {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := pcap.ReadUDP(data)
	if err != nil {
		t.Fatal(err)
	}
	rs := &refSession{}
	byAddr := map[netip.AddrPort]*refClient{}
	client := func(a netip.AddrPort) *refClient {
		c := byAddr[a]
		if c == nil {
			c = &refClient{addr: a, cid: -1, awaiting: map[int32]int{}, snaps: map[int32]*snap.Snapshot{},
				recv: snap.NewReceiver(snap.MsgIDs7, snap.Sizes7)}
			for i := range c.ring {
				c.ring[i].tick = -1
			}
			byAddr[a] = c
			rs.clients = append(rs.clients, c)
		}
		return c
	}
	type seqKey struct {
		a        netip.AddrPort
		toServer bool
		seq      uint16
	}
	seen := map[seqKey]bool{}
	var buf []byte
	var u netproto.Unpacker
	for _, p := range pkts {
		if len(p.Payload) == 0 || netproto.IsConnless(p.Payload) || p.Payload[0]&0xc0 != 0 {
			continue
		}
		toServer := p.Dst.Port() == refServerPort
		peer := p.Src
		if !toServer {
			if p.Src.Port() != refServerPort {
				continue
			}
			peer = p.Dst
		}
		hdr, raw, err := netproto.ParsePacket(p.Payload)
		if err != nil {
			continue
		}
		if hdr.Flags&netproto.FlagControl != 0 {
			if toServer && len(raw) > 0 && raw[0] == netproto.CtrlClose {
				rs.actions = append(rs.actions, refAction{at: p.Time, kind: actClose, c: client(peer)})
			}
			continue
		}
		payload, err := netproto.DecodePayload(buf[:0], hdr, raw)
		if err != nil {
			t.Fatalf("packet %d: %v", p.Index, err)
		}
		buf = payload[:0]
		c := client(peer)
		var cr netproto.ChunkReader
		cr.Reset(payload, int(hdr.NumChunks))
		for ch, ok := cr.Next(); ok; ch, ok = cr.Next() {
			if ch.Flags&netproto.ChunkVital != 0 {
				k := seqKey{peer, toServer, ch.Seq}
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			id, sys, n, err := netproto.ParseMsgHeader(ch.Data)
			if err != nil {
				continue
			}
			body := ch.Data[n:]
			u.Reset(body)
			switch {
			case toServer && sys && id == netproto.NetmsgReady:
				rs.actions = append(rs.actions, refAction{at: p.Time, kind: actReady, c: c})
			case toServer && sys && id == netproto.NetmsgEnterGame:
				rs.actions = append(rs.actions, refAction{at: p.Time, kind: actEnter, c: c})
			case toServer && sys && id == netproto.NetmsgInput:
				u.GetInt() // ack tick
				intended := u.GetInt()
				size := u.GetInt()
				var ints [SizePlayerInput]int32
				for i := 0; i < int(size/4) && i < SizePlayerInput; i++ {
					ints[i] = u.GetInt()
				}
				in, err := DecodeInput(ints[:])
				if u.Err() != nil || err != nil {
					t.Fatalf("packet %d: bad INPUT %v", p.Index, ints)
				}
				// the server answers with INPUTTIMING only when the intended
				// tick is newer than the previous input's
				if c.lastIntended == 0 || intended > c.lastIntended {
					c.awaiting[intended] = len(rs.actions)
				}
				c.lastIntended = intended
				rs.actions = append(rs.actions, refAction{at: p.Time, kind: actInput, c: c,
					input: refInput{intended: intended, in: in, left: noTiming}})
			case toServer && !sys && id == clStartInfo:
				c.info.Name = u.GetString()
				c.info.Clan = u.GetString()
				c.info.Country = u.GetInt()
				for i := range c.info.SkinPartNames {
					c.info.SkinPartNames[i] = u.GetString()
				}
				for i := range c.info.UseCustomColors {
					c.info.UseCustomColors[i] = u.GetInt() != 0
				}
				for i := range c.info.SkinPartColors {
					c.info.SkinPartColors[i] = u.GetInt()
				}
			case !toServer && !sys && id == svClientInfo:
				cid, local := u.GetInt(), u.GetInt()
				if local == 1 {
					c.cid = int(cid)
				}
			case !toServer && sys && id == netproto.NetmsgInputTiming:
				intended, left := u.GetInt(), u.GetInt()
				if i, ok := c.awaiting[intended]; ok {
					rs.actions[i].input.left = left
					delete(c.awaiting, intended)
				}
			case !toServer && sys && id >= netproto.NetmsgSnap && id <= netproto.NetmsgSnapSingle:
				tick, done, err := c.recv.Handle(id, append([]byte(nil), body...))
				if err != nil {
					t.Fatalf("packet %d: snapshot: %v", p.Index, err)
				}
				if done {
					s, _ := c.recv.Latest()
					cp := new(snap.Snapshot)
					cp.CopyFrom(s)
					c.snaps[tick] = cp
					rs.last = max(rs.last, tick)
				}
			}
		}
	}
	// Calibrate the server's tick schedule: an INPUTTIMING reply says that the
	// input arrived time_left ms before tick intended started, so tick 0
	// started no earlier than capture time + time_left - intended*20ms.
	// Most inputs are handled within a ms of their capture, so the bounds
	// cluster just below the true start; a few lie tens of ms above it (not
	// understood; they would shift everything), so the 90th percentile is
	// taken instead of the maximum.
	var bounds []time.Time
	for _, a := range rs.actions {
		if a.kind != actInput {
			continue
		}
		if left := a.input.left; left != noTiming {
			bounds = append(bounds, a.at.Add(time.Duration(left)*time.Millisecond-time.Duration(a.input.intended)*20*time.Millisecond))
		}
	}
	sort.Slice(bounds, func(i, j int) bool { return bounds[i].Before(bounds[j]) })
	if len(bounds) > 0 {
		rs.tick0 = bounds[len(bounds)*9/10]
	}
	if rs.tick0.IsZero() || rs.last == 0 {
		t.Fatal("session without INPUTTIMING replies or snapshots")
	}
	for i := range rs.actions {
		a := &rs.actions[i]
		a.tick = rs.tickAt(a.at)
		if a.kind == actInput {
			if left := a.input.left; left != noTiming {
				// the server answered at Now = TickStart(intended) - left ms
				// and was then after the last tick that had started before Now
				a.tick = a.input.intended - floorDiv(left, 20) - 1
				// A few ms past a tick start the server may still be in
				// the read that began before it (the tick not yet run).
				a.undetermined = left <= 0 && left >= -4
				if left < 0 {
					// time_left was truncated toward zero: a negative true
					// value lies in (left-1, left], past the tick boundary
					// when left is a multiple of 20. (0 stands for both
					// signs; clients send early, so it is taken as positive.)
					a.tick = a.input.intended - floorDiv(left-1, 20) - 1
				}
			}
		}
	}
	for i := range rs.actions {
		a := &rs.actions[i]
		if a.kind != actInput {
			// A join or leave is timed by its capture time alone. Clients
			// answer the server's messages within a fraction of a ms, so
			// READY and ENTERGAME often arrive right at a tick start, where
			// the calibration (good to about a ms) cannot tell the tick. A
			// CLOSE only marks the connection; the reference drops the
			// client in the network update at the start of its next pump,
			// which on a late server comes after the next tick.
			a.base, a.alt = a.tick, a.tick
			switch d := a.at.Sub(rs.tick0) % (20 * time.Millisecond); {
			case d < 2*time.Millisecond:
				a.alt = a.tick - 1
			case d > 18*time.Millisecond || a.kind == actClose:
				a.alt = a.tick + 1
			}
			a.undetermined = a.alt != a.base
			continue
		}
		a.base, a.alt = a.tick, a.tick+1
		if a.input.left < 0 {
			a.alt = a.tick - 1
		}
		if a.input.left == noTiming {
			// handled no later than the next answered packet; on a stalled
			// server in the same burst as it
			a.undetermined = true
			for j := i + 1; j < len(rs.actions); j++ {
				if b := &rs.actions[j]; b.kind == actInput && b.input.left != noTiming {
					if b.tick > a.tick {
						a.alt = b.tick
					}
					break
				}
			}
		}
		a.input.stamp = max(a.input.intended, a.tick+1)
	}
	rs.markLatePumps()
	for _, c := range rs.clients {
		if c.cid < 0 && len(c.snaps) > 0 {
			t.Fatalf("client %v: no local Sv_ClientInfo", c.addr)
		}
	}
	return rs
}

// markLatePumps finds answered inputs the server may have handled with the
// tick before the one its clock had reached. The server reads all queued
// datagrams in one network pump with the current tick fixed by the loop
// iteration that began before it; a server descheduled inside the pump
// answers late (time_left tells the clock, not the tick). Answered inputs
// form one pump when each was captured before its predecessor was answered
// (it was queued by then) and both were answered in the same tick; when a
// member was captured before that tick began, the pump may have begun in
// the previous tick, so all its inputs get that tick as their alternative.
func (rs *refSession) markLatePumps() {
	var pump []*refAction
	var lastNow time.Duration
	flush := func() {
		late := false
		for _, a := range pump {
			late = late || rs.tickAt(a.at) < a.tick
		}
		for _, a := range pump {
			if late && !a.undetermined {
				a.undetermined = true
				a.alt = a.tick - 1
			}
		}
		pump = pump[:0]
	}
	for i := range rs.actions {
		a := &rs.actions[i]
		if a.kind != actInput || a.input.left == noTiming {
			continue
		}
		// the server's clock when it answered, from the calibrated start
		now := time.Duration(a.input.intended)*20*time.Millisecond - time.Duration(a.input.left)*time.Millisecond
		if len(pump) > 0 && (a.tick != pump[0].tick || a.at.Sub(rs.tick0) > lastNow+time.Millisecond) {
			flush()
		}
		pump = append(pump, a)
		lastNow = now
	}
	flush()
}

func floorDiv(a, b int32) int32 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// tickAt returns the server tick current at time at: the last tick that
// started before it on the calibrated schedule.
func (rs *refSession) tickAt(at time.Time) int32 {
	d := at.Sub(rs.tick0)
	return int32((d - 1) / (20 * time.Millisecond))
}

// flip switches an undetermined input to its other candidate arrival tick.
func (a *refAction) flip() {
	if a.tick == a.base {
		a.tick = a.alt
	} else {
		a.tick = a.base
	}
	a.input.stamp = max(a.input.intended, a.tick+1)
}

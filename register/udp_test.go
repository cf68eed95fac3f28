package register

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// sentPacket is what the heartbeat asked the game socket to send.
type sentPacket struct {
	to      netip.AddrPort
	token   uint32
	payload string // "" for a token request
}

type fakeSender struct {
	mu   sync.Mutex
	sent []sentPacket
}

func (f *fakeSender) SendTokenRequest(to netip.AddrPort) {
	f.mu.Lock()
	f.sent = append(f.sent, sentPacket{to: to})
	f.mu.Unlock()
}

func (f *fakeSender) SendConnless(to netip.AddrPort, token uint32, payload []byte) {
	f.mu.Lock()
	f.sent = append(f.sent, sentPacket{to: to, token: token, payload: string(payload)})
	f.mu.Unlock()
}

func (f *fakeSender) packets() []sentPacket {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentPacket(nil), f.sent...)
}

// TestHeartbeatExchange walks the legacy exchange: token request, heartbeat
// with the master's token and the port, fw!! with the checker's token, FWOK;
// packets from other addresses are not taken.
func TestHeartbeatExchange(t *testing.T) {
	var s fakeSender
	h := NewHeartbeat(HeartbeatOptions{Masters: []string{"127.0.0.1:8283"}, Port: 8303, Send: &s, Logger: zerolog.Nop()})
	master := netip.MustParseAddrPort("127.0.0.1:8283")
	checker := netip.MustParseAddrPort("127.0.0.1:8284")
	if h.HandlePacket(master, 1, nil) {
		t.Fatal("took a packet before the masters were resolved")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Run(ctx)
	waitFor(t, "token request", 2*time.Second, func() bool { return len(s.packets()) > 0 })
	if p := s.packets()[0]; p.to != master || p.payload != "" {
		t.Fatalf("first packet %+v, want a token request to the master", p)
	}
	if h.HandlePacket(netip.MustParseAddrPort("127.0.0.2:8283"), 1, nil) {
		t.Error("took a packet from an address that is no master")
	}
	if !h.HandlePacket(master, 0xaabbccdd, nil) {
		t.Fatal("token reply from the master not taken")
	}
	waitFor(t, "heartbeat", 2*time.Second, func() bool {
		for _, p := range s.packets() {
			if p.payload == "\xff\xff\xff\xffbea2\x20\x6f" && p.token == 0xaabbccdd && p.to == master {
				return true
			}
		}
		return false
	})
	h.HandlePacket(checker, 0x11223344, []byte("\xff\xff\xff\xfffw??"))
	waitFor(t, "fw!!", 2*time.Second, func() bool {
		for _, p := range s.packets() {
			if p.payload == "\xff\xff\xff\xfffw!!" && p.token == 0x11223344 && p.to == checker {
				return true
			}
		}
		return false
	})
	h.HandlePacket(master, 0, []byte("\xff\xff\xff\xfffwok"))
	waitFor(t, "registered", 2*time.Second, func() bool { return h.Registered(0) })
	h.HandlePacket(master, 0, []byte("\xff\xff\xff\xfffwer"))
	waitFor(t, "unregistered", 2*time.Second, func() bool { return !h.Registered(0) })
}

package netproto_test

import (
	"fmt"
	"net/netip"
	"time"

	"twserver/netproto"
)

// Example shows a client and a server Conn talking through an in-memory
// network: the stateless token exchange, CONNECT/ACCEPT, and one vital
// system message.
func Example() {
	ip := netip.MustParseAddr("127.0.0.1")
	gen := netproto.NewTokenGen(netproto.TokenSecret{42}, 0)
	var cli, srv netproto.Conn
	now := time.Duration(0)
	buf := make([]byte, 0, netproto.MaxPacketSize)
	scratch := make([]byte, 0, netproto.MaxPayload)

	// deliver hands one datagram to the server side.
	deliver := func(p []byte) {
		h, payload, err := netproto.ParsePacket(p)
		if err != nil {
			return
		}
		if srv.State() == netproto.StateOffline { // unknown address: stateless
			ctl, err := netproto.ParseControl(payload)
			if err != nil {
				return
			}
			switch {
			case ctl.Type == netproto.CtrlToken && h.Token == netproto.TokenNone && ctl.Padded:
				reply := netproto.AppendTokenResponse(nil, ctl.Token, gen.Token(ip))
				rh, rp, _ := netproto.ParsePacket(reply)
				cli.Feed(now, rh, rp)
			case ctl.Type == netproto.CtrlConnect && gen.Check(ip, h.Token):
				srv.Accept(now, h.Token, ctl.Token)
			}
			return
		}
		raw, err := netproto.DecodePayload(scratch, h, payload)
		if err != nil || srv.Feed(now, h, raw) != nil {
			return
		}
		for ch, ok := srv.Recv(); ok; ch, ok = srv.Recv() {
			var u netproto.Unpacker
			u.Reset(ch.Data)
			id, sys := u.GetMsgHeader()
			var info netproto.MsgInfo
			if sys && id == netproto.NetmsgInfo && info.Unpack(&u) == nil {
				fmt.Printf("server got INFO %q, client version %#x\n", info.Version, info.ClientVersion)
			}
		}
	}
	pump := func() {
		for {
			p, ok := cli.Poll(buf[:0])
			if ok {
				deliver(p)
			}
			q, ok2 := srv.Poll(buf[:0])
			if ok2 {
				h, payload, _ := netproto.ParsePacket(q)
				raw, _ := netproto.DecodePayload(scratch, h, payload)
				cli.Feed(now, h, raw)
			}
			if !ok && !ok2 {
				return
			}
		}
	}

	cli.Connect(now, 0x11223344)
	pump()
	fmt.Println("client:", cli.State(), "server:", srv.State())

	var p netproto.Packer
	netproto.PackSys(&p, &netproto.MsgInfo{Version: "0.7 802f1be60a05665f", ClientVersion: 0x0705})
	cli.Send(now, p.Bytes(), netproto.SendVital|netproto.SendFlush)
	pump()
	fmt.Println("client:", cli.State(), "server:", srv.State())

	now += 11 * time.Second // silence
	srv.Update(now)
	fmt.Println("server:", srv.State(), srv.Reason())
	// Output:
	// client: online server: pending
	// server got INFO "0.7 802f1be60a05665f", client version 0x705
	// client: online server: online
	// server: error Timeout
}

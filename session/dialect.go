package session

import (
	"fmt"

	"twserver/netproto"
)

// The version strings a client must send in INFO, per dialect.
const (
	// NetVersion is the 0.7 network version.
	NetVersion = "0.7 802f1be60a05665f"
	// NetVersion6 is the 0.6 network version (DDNet's too).
	NetVersion6 = "0.6 626fce9a778df4d4"
)

// MinClientVersion is the oldest 0.7 client version accepted (0.7.0).
const MinClientVersion = 0x0700

// Refusal is the reason an INFO of dialect d is refused, with the
// reference's texts, or "" to accept it: the version must be the
// dialect's, the password the server's when it has one.
func Refusal(d netproto.Dialect, version, password, serverPassword string) string {
	want := NetVersion
	if d.Is6() {
		want = NetVersion6
	}
	if version != want {
		return fmt.Sprintf("Wrong version. Server is running '%s' and client '%s'", want, version)
	}
	if serverPassword != "" && password != serverPassword {
		return "Wrong password"
	}
	return ""
}

// SysHeader writes the header of 0.7 system message id in dialect d;
// false when d has no such message (then nothing should be sent). The
// RCON_AUTH_ON/OFF of 0.7 become 0.6's RCON_AUTH_STATUS(authed, command
// list follows).
func SysHeader(d netproto.Dialect, p *netproto.Packer, id int32) bool {
	if !d.Is6() {
		p.AddMsgHeader(id, true)
		return true
	}
	id6, ok := netproto.SysID6(id)
	if !ok {
		return false
	}
	p.AddMsgHeader(id6, true)
	switch id {
	case netproto.NetmsgRconAuthOn:
		p.AddInt(1)
		p.AddInt(1)
	case netproto.NetmsgRconAuthOff:
		p.AddInt(0)
		p.AddInt(0)
	}
	return true
}

// DDNet UUID messages (net.md B3.3): MD5(namespace ‖ name) made a
// version-3 UUID.
var (
	uuidClientVer = netproto.DDNetUUID("clientver@ddnet.tw")
	uuidPing      = netproto.DDNetUUID("ping@ddnet.tw")
	uuidPong      = netproto.DDNetUUID("pong@ddnet.tw")
	uuidWhatIs    = netproto.DDNetUUID("what-is@ddnet.tw")
	uuidIDontKnow = netproto.DDNetUUID("i-dont-know@ddnet.tw")
)

// ex6 handles DDNet's UUID system messages the 16.4 client sends:
// clientver (its DDNet version, vital in Auth), ping (answered with pong)
// and what-is (vital, answered i-dont-know); the others are ignored.
func (d *Dispatcher) ex6(h Handler, vital bool, st Status) error {
	raw := d.u.GetRaw(16)
	if d.u.Err() != nil {
		return d.u.Err()
	}
	var uuid [16]byte
	copy(uuid[:], raw)
	switch uuid {
	case uuidClientVer:
		if !vital || st.State != Auth {
			return nil
		}
		d.u.GetRaw(16) // connection id
		v := d.u.GetInt()
		if d.u.Err() != nil {
			return d.u.Err()
		}
		h.ClientVersion(v)
	case uuidPing:
		return d.answerEx6(h, uuidPong, netproto.SendFlush)
	case uuidWhatIs:
		if !vital {
			return nil
		}
		return d.answerEx6(h, uuidIDontKnow, netproto.SendVital|netproto.SendFlush)
	}
	return nil
}

// answerEx6 answers a UUID message with the 16-byte id it carries.
func (d *Dispatcher) answerEx6(h Handler, uuid [16]byte, flags netproto.SendFlags) error {
	id := d.u.GetRaw(16)
	if d.u.Err() != nil {
		return d.u.Err()
	}
	d.p.Reset()
	d.p.AddMsgHeader(netproto.Netmsg6Ex, true)
	d.p.AddRaw(uuid[:])
	d.p.AddRaw(id)
	h.Send(d.p.Bytes(), flags)
	return nil
}

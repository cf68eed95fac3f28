package session

import (
	"errors"

	"twserver/console"
	"twserver/netproto"
)

// Status is what the guards of the message table read of a slot.
type Status struct {
	State      State
	StartInfo  bool // Cl_StartInfo arrived on this connection
	RconAuthed bool // rcon authenticated
}

// Input is a decoded NETMSG_INPUT (net.md A4.8).
type Input struct {
	AckTick        int32   // the last snapshot the client has
	Intended       int32   // the tick the input is for
	Data           []int32 // the input's ints, in the client's dialect; valid until the next Dispatch
	PingCorrection int32   // 0 when absent
}

// Handler is the loop's side of one slot's system messages: the
// Dispatcher calls it for a message that passed its row's guard and
// decoded. The loop changes the slot's State itself (it also moves slots
// back on a map change).
type Handler interface {
	// Info is a vital INFO in Auth: the version string, the password and
	// (0.7) the client version, 0 when absent or 0.6.
	Info(version, password string, clientVersion int32)
	// RequestMapData is a vital REQUEST_MAP_DATA in Connecting: 0.6 names
	// the chunk, 0.7 does not (chunk -1).
	RequestMapData(chunk int32)
	// Ready is a vital READY in Connecting.
	Ready()
	// EnterGame is a vital ENTERGAME in Ready after the start info.
	EnterGame()
	// Input is an INPUT, in any state (the loop applies it in game only).
	Input(in *Input)
	// RconAuth is a vital RCON_AUTH from Auth on.
	RconAuth(password string, sendCmdList bool)
	// RconCmd is a vital RCON_CMD of an authenticated slot, at most
	// console.MaxLine bytes.
	RconCmd(line string)
	// ClientVersion is DDNet's clientver@ddnet.tw in Auth.
	ClientVersion(v int32)
	// Sender sends the answers to pings.
	Sender
	// BadMessage counts a message that passed its guard but did not decode.
	BadMessage()
}

// guard is what a row asks of the message and the slot.
type guard uint8

const (
	always    guard = iota // any state, vital or not
	inState                // vital, in exactly the row's state
	fromState              // vital, in the row's state or later
	entering               // vital, in Ready with the start info
	authed                 // vital, rcon authenticated
)

// row is one system message a dialect knows: its id, its guard, and the
// decoding that calls the handler.
type row struct {
	id    int32
	guard guard
	state State
	run   func(d *Dispatcher, h Handler, vital bool, st Status) error
}

// rows7 are the 0.7 system messages a client sends (net.md A3.1).
var rows7 = [...]row{
	{netproto.NetmsgInfo, inState, Auth, (*Dispatcher).info7},
	{netproto.NetmsgRequestMapData, inState, Connecting, (*Dispatcher).request7},
	{netproto.NetmsgReady, inState, Connecting, (*Dispatcher).ready},
	{netproto.NetmsgEnterGame, entering, Ready, (*Dispatcher).enter},
	{netproto.NetmsgInput, always, Empty, (*Dispatcher).input},
	{netproto.NetmsgRconAuth, fromState, Auth, (*Dispatcher).rconAuth7},
	{netproto.NetmsgRconCmd, authed, Empty, (*Dispatcher).rconCmd},
	{netproto.NetmsgPing, always, Empty, (*Dispatcher).ping},
}

// rows6 are the 0.6/DDNet system messages a client sends (net.md B3.1).
var rows6 = [...]row{
	{netproto.Netmsg6Ex, always, Empty, (*Dispatcher).ex6},
	{netproto.Netmsg6Info, inState, Auth, (*Dispatcher).info6},
	{netproto.Netmsg6RequestMapData, inState, Connecting, (*Dispatcher).request6},
	{netproto.Netmsg6Ready, inState, Connecting, (*Dispatcher).ready},
	{netproto.Netmsg6EnterGame, entering, Ready, (*Dispatcher).enter},
	{netproto.Netmsg6Input, always, Empty, (*Dispatcher).input},
	{netproto.Netmsg6RconAuth, fromState, Auth, (*Dispatcher).rconAuth6},
	{netproto.Netmsg6RconCmd, authed, Empty, (*Dispatcher).rconCmd},
	{netproto.Netmsg6Ping, always, Empty, (*Dispatcher).ping},
}

// errTooLong rejects an INPUT with more ints than netproto.MaxInputInts.
var errTooLong = errors.New("session: input too long")

// Dispatcher decodes the system messages of the slots of one game; its
// buffers are reused, so a message costs no allocation. The zero value is
// ready.
type Dispatcher struct {
	u       netproto.Unpacker
	p       netproto.Packer
	dialect netproto.Dialect
	in      Input
	data    [netproto.MaxInputInts]int32
}

// Dispatch handles system message id with body from a slot of dialect d
// in status st, vital or not: unknown ids and messages the slot may not
// send now are ignored, as the reference ignores them.
func (d *Dispatcher) Dispatch(dialect netproto.Dialect, id int32, body []byte, vital bool, st Status, h Handler) {
	rows := rows7[:]
	if dialect.Is6() {
		rows = rows6[:]
	}
	for i := range rows {
		r := &rows[i]
		if r.id != id {
			continue
		}
		if !r.allows(vital, st) {
			return
		}
		d.dialect = dialect
		d.u.Reset(body)
		if r.run(d, h, vital, st) != nil {
			h.BadMessage()
		}
		return
	}
}

// allows reports whether r's guard lets a message through.
func (r *row) allows(vital bool, st Status) bool {
	switch r.guard {
	case inState:
		return vital && st.State == r.state
	case fromState:
		return vital && st.State >= r.state
	case entering:
		return vital && st.State == Ready && st.StartInfo
	case authed:
		return vital && st.RconAuthed
	}
	return true
}

func (d *Dispatcher) info7(h Handler, _ bool, _ Status) error {
	version, password := d.u.GetString(), d.u.GetString()
	clientVersion := d.u.GetIntOrDefault(0)
	if d.u.Err() != nil {
		return d.u.Err()
	}
	h.Info(version, password, clientVersion)
	return nil
}

func (d *Dispatcher) info6(h Handler, _ bool, _ Status) error {
	version, password := d.u.GetString(), d.u.GetString()
	if d.u.Err() != nil {
		return d.u.Err()
	}
	h.Info(version, password, 0)
	return nil
}

func (d *Dispatcher) request7(h Handler, _ bool, _ Status) error {
	h.RequestMapData(-1)
	return nil
}

func (d *Dispatcher) request6(h Handler, _ bool, _ Status) error {
	chunk := d.u.GetInt()
	if d.u.Err() != nil {
		return d.u.Err()
	}
	h.RequestMapData(chunk)
	return nil
}

func (d *Dispatcher) ready(h Handler, _ bool, _ Status) error {
	h.Ready()
	return nil
}

func (d *Dispatcher) enter(h Handler, _ bool, _ Status) error {
	h.EnterGame()
	return nil
}

func (d *Dispatcher) input(h Handler, _ bool, _ Status) error {
	in := &d.in
	in.AckTick, in.Intended = d.u.GetInt(), d.u.GetInt()
	size := d.u.GetInt()
	if d.u.Err() != nil {
		return d.u.Err()
	}
	if size < 0 || size/4 > netproto.MaxInputInts {
		return errTooLong
	}
	in.Data = d.data[:size/4]
	for i := range in.Data {
		in.Data[i] = d.u.GetInt()
	}
	in.PingCorrection = d.u.GetIntOrDefault(0)
	if d.u.Err() != nil {
		return d.u.Err()
	}
	h.Input(in)
	return nil
}

func (d *Dispatcher) rconAuth7(h Handler, _ bool, _ Status) error {
	pw := d.u.GetString()
	if d.u.Err() != nil {
		return d.u.Err()
	}
	h.RconAuth(pw, true)
	return nil
}

func (d *Dispatcher) rconAuth6(h Handler, _ bool, _ Status) error {
	var m netproto.Msg6RconAuth
	if err := m.Unpack(&d.u); err != nil {
		return err
	}
	h.RconAuth(m.Password, m.SendCmdList != 0)
	return nil
}

func (d *Dispatcher) rconCmd(h Handler, _ bool, _ Status) error {
	line := d.u.GetString()
	if d.u.Err() != nil {
		return d.u.Err()
	}
	if len(line) <= console.MaxLine {
		h.RconCmd(line)
	}
	return nil
}

// ping answers PING with an empty PING_REPLY, not vital.
func (d *Dispatcher) ping(h Handler, _ bool, _ Status) error {
	d.p.Reset()
	SysHeader(d.dialect, &d.p, netproto.NetmsgPingReply)
	h.Send(d.p.Bytes(), netproto.SendFlush)
	return nil
}

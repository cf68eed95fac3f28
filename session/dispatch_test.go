package session

import (
	"fmt"
	"strings"
	"testing"

	"twserver/console"
	"twserver/netproto"
	"twserver/world"
)

// recorder is a Handler that writes down each call.
type recorder struct{ calls []string }

func (r *recorder) add(f string, a ...any) { r.calls = append(r.calls, fmt.Sprintf(f, a...)) }

func (r *recorder) Info(v, pw string, cv int32) { r.add("info %q %q %d", v, pw, cv) }
func (r *recorder) RequestMapData(chunk int32)  { r.add("request %d", chunk) }
func (r *recorder) Ready()                      { r.add("ready") }
func (r *recorder) EnterGame()                  { r.add("enter") }
func (r *recorder) Input(in *Input) {
	r.add("input %d %d %v %d", in.AckTick, in.Intended, in.Data, in.PingCorrection)
}
func (r *recorder) RconAuth(pw string, list bool)         { r.add("rconauth %q %v", pw, list) }
func (r *recorder) RconCmd(line string)                   { r.add("rconcmd %q", line) }
func (r *recorder) ClientVersion(v int32)                 { r.add("clientver %d", v) }
func (r *recorder) Send(msg []byte, f netproto.SendFlags) { r.add("send %x %d", msg, f) }
func (r *recorder) BadMessage()                           { r.add("bad") }

// body packs a message body: strings, int32s and raw bytes in order.
func body(parts ...any) []byte {
	var p netproto.Packer
	for _, x := range parts {
		switch v := x.(type) {
		case string:
			p.AddString(v)
		case int:
			p.AddInt(int32(v))
		case []byte:
			p.AddRaw(v)
		case [16]byte:
			p.AddRaw(v[:])
		}
	}
	return append([]byte(nil), p.Bytes()...)
}

// header is the packed header of system message id.
func header(id int32) string {
	var p netproto.Packer
	p.AddMsgHeader(id, true)
	return fmt.Sprintf("%x", p.Bytes())
}

var (
	d7  = netproto.Dialect7
	d6  = netproto.Dialect6
	dd  = netproto.DialectDDNet
	cid = [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
)

// TestDispatch: every row of both tables, with its guard on each side,
// and the decoding of what the message carries.
func TestDispatch(t *testing.T) {
	auth := Status{State: Auth}
	conn := Status{State: Connecting}
	ready := Status{State: Ready}
	readyInfo := Status{State: Ready, StartInfo: true}
	ingame := Status{State: Ingame, StartInfo: true}
	rcon := Status{State: Ingame, RconAuthed: true}
	long := strings.Repeat("x", console.MaxLine+1)
	for _, tc := range []struct {
		name    string
		dialect netproto.Dialect
		id      int32
		body    []byte
		vital   bool
		st      Status
		want    string // the calls, joined by "; "
	}{
		{"0.7 info", d7, netproto.NetmsgInfo, body("v", "pw", 0x0705), true, auth, `info "v" "pw" 1797`},
		{"0.7 info without client version", d7, netproto.NetmsgInfo, body("v", "pw"), true, auth, `info "v" "pw" 0`},
		{"0.7 info not vital", d7, netproto.NetmsgInfo, body("v", "pw"), false, auth, ``},
		{"0.7 info again", d7, netproto.NetmsgInfo, body("v", "pw"), true, conn, ``},
		{"0.7 info unterminated", d7, netproto.NetmsgInfo, []byte("v"), true, auth, `bad`},
		{"0.6 info", d6, netproto.Netmsg6Info, body("v", "pw", 7), true, auth, `info "v" "pw" 0`},
		{"0.6 info without password", dd, netproto.Netmsg6Info, body("v"), true, auth, `info "v" "" 0`},
		{"0.6 info in game", d6, netproto.Netmsg6Info, body("v", "pw"), true, ingame, ``},
		{"0.7 map request", d7, netproto.NetmsgRequestMapData, nil, true, conn, `request -1`},
		{"0.7 map request before info", d7, netproto.NetmsgRequestMapData, nil, true, auth, ``},
		{"0.6 map request", d6, netproto.Netmsg6RequestMapData, body(3), true, conn, `request 3`},
		{"0.6 map request without chunk", d6, netproto.Netmsg6RequestMapData, nil, true, conn, `bad`},
		{"0.6 map request when ready", dd, netproto.Netmsg6RequestMapData, body(3), true, ready, ``},
		{"0.7 ready", d7, netproto.NetmsgReady, nil, true, conn, `ready`},
		{"0.7 ready twice", d7, netproto.NetmsgReady, nil, true, ready, ``},
		{"0.6 ready", dd, netproto.Netmsg6Ready, nil, true, conn, `ready`},
		{"0.6 ready not vital", dd, netproto.Netmsg6Ready, nil, false, conn, ``},
		{"0.7 enter", d7, netproto.NetmsgEnterGame, nil, true, readyInfo, `enter`},
		{"0.7 enter without start info", d7, netproto.NetmsgEnterGame, nil, true, ready, ``},
		{"0.6 enter", d6, netproto.Netmsg6EnterGame, nil, true, readyInfo, `enter`},
		{"0.6 enter in game", d6, netproto.Netmsg6EnterGame, nil, true, ingame, ``},
		{"0.7 input", d7, netproto.NetmsgInput, body(5, 9, 8, 1, 2, 4), false, ingame, `input 5 9 [1 2] 4`},
		{"0.7 input before the game", d7, netproto.NetmsgInput, body(5, 9, 0), false, auth, `input 5 9 [] 0`},
		{"0.6 input", dd, netproto.Netmsg6Input, body(5, 9, 4, 1), true, ingame, `input 5 9 [1] 0`},
		{"input too long", d7, netproto.NetmsgInput, body(5, 9, 4*netproto.MaxInputInts+4), false, ingame, `bad`},
		{"input negative size", d7, netproto.NetmsgInput, body(5, 9, -4), false, ingame, `bad`},
		{"input cut", d6, netproto.Netmsg6Input, body(5, 9, 8, 1), false, ingame, `bad`},
		{"0.7 rcon auth", d7, netproto.NetmsgRconAuth, body("pw"), true, auth, `rconauth "pw" true`},
		{"0.7 rcon auth empty", d7, netproto.NetmsgRconAuth, nil, true, ingame, `rconauth "" true`},
		{"0.7 rcon auth before the connection", d7, netproto.NetmsgRconAuth, body("pw"), true, Status{}, ``},
		{"0.6 rcon auth", d6, netproto.Netmsg6RconAuth, body("", "pw", 1), true, ingame, `rconauth "pw" true`},
		{"0.6 rcon auth without list", dd, netproto.Netmsg6RconAuth, body("", "pw"), true, conn, `rconauth "pw" false`},
		{"0.6 rcon auth unterminated", dd, netproto.Netmsg6RconAuth, []byte("pw"), true, conn, `bad`},
		{"0.7 rcon command", d7, netproto.NetmsgRconCmd, body("status"), true, rcon, `rconcmd "status"`},
		{"0.7 rcon command not authed", d7, netproto.NetmsgRconCmd, body("status"), true, ingame, ``},
		{"0.7 rcon command too long", d7, netproto.NetmsgRconCmd, body(long), true, rcon, ``},
		{"0.6 rcon command", d6, netproto.Netmsg6RconCmd, body("status"), true, rcon, `rconcmd "status"`},
		{"0.6 rcon command not vital", d6, netproto.Netmsg6RconCmd, body("status"), false, rcon, ``},
		{"0.7 ping", d7, netproto.NetmsgPing, nil, false, auth, `send ` + header(netproto.NetmsgPingReply) + ` 2`},
		{"0.6 ping", d6, netproto.Netmsg6Ping, nil, false, ingame, `send ` + header(netproto.Netmsg6PingReply) + ` 2`},
		{"0.7 unknown id", d7, 99, nil, true, ingame, ``},
		{"0.6 unknown id", d6, 40, nil, true, conn, ``},
		{"clientver", dd, netproto.Netmsg6Ex, body(uuidClientVer, cid, 16040), true, auth, `clientver 16040`},
		{"clientver in game", dd, netproto.Netmsg6Ex, body(uuidClientVer, cid, 16040), true, ingame, ``},
		{"clientver cut", dd, netproto.Netmsg6Ex, body(uuidClientVer, cid), true, auth, `bad`},
		{"ddnet ping", dd, netproto.Netmsg6Ex, body(uuidPing, cid), false, ingame,
			`send ` + header(netproto.Netmsg6Ex) + fmt.Sprintf("%x%x", uuidPong, cid) + ` 2`},
		{"what-is", dd, netproto.Netmsg6Ex, body(uuidWhatIs, cid), true, conn,
			`send ` + header(netproto.Netmsg6Ex) + fmt.Sprintf("%x%x", uuidIDontKnow, cid) + ` 3`},
		{"what-is not vital", dd, netproto.Netmsg6Ex, body(uuidWhatIs, cid), false, conn, ``},
		{"unknown uuid", dd, netproto.Netmsg6Ex, body(cid), true, conn, ``},
		{"uuid cut", dd, netproto.Netmsg6Ex, body(1, 2), true, conn, `bad`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d Dispatcher
			var r recorder
			d.Dispatch(tc.dialect, tc.id, tc.body, tc.vital, tc.st, &r)
			if got := strings.Join(r.calls, "; "); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// nopHandler is a Handler that does nothing.
type nopHandler struct{}

func (nopHandler) Info(string, string, int32)      {}
func (nopHandler) RequestMapData(int32)            {}
func (nopHandler) Ready()                          {}
func (nopHandler) EnterGame()                      {}
func (nopHandler) Input(*Input)                    {}
func (nopHandler) RconAuth(string, bool)           {}
func (nopHandler) RconCmd(string)                  {}
func (nopHandler) ClientVersion(int32)             {}
func (nopHandler) Send([]byte, netproto.SendFlags) {}
func (nopHandler) BadMessage()                     {}

// TestDispatchAllocs: an INPUT and a PING cost no allocation.
func TestDispatchAllocs(t *testing.T) {
	var d Dispatcher
	var h nopHandler
	input := body(5, 9, 40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0)
	st := Status{State: Ingame, StartInfo: true}
	if n := testing.AllocsPerRun(100, func() {
		d.Dispatch(d7, netproto.NetmsgInput, input, false, st, h)
		d.Dispatch(dd, netproto.Netmsg6Ping, nil, false, st, h)
	}); n != 0 {
		t.Errorf("%v allocations per message", n)
	}
}

// FuzzDispatch: any body of any id in any state and dialect decodes to
// calls or nothing, never a panic; a decoded input holds at most
// MaxInputInts ints.
func FuzzDispatch(f *testing.F) {
	f.Add(uint8(0), int32(netproto.NetmsgInfo), body("v", "pw", 1), true, uint8(Auth), false, false)
	f.Add(uint8(2), int32(netproto.Netmsg6Ex), body(uuidClientVer, cid, 1), true, uint8(Auth), false, false)
	f.Add(uint8(0), int32(netproto.NetmsgInput), body(1, 2, 8, 1, 2), false, uint8(Ingame), true, false)
	f.Add(uint8(1), int32(netproto.Netmsg6RconAuth), body("", "pw", 1), true, uint8(Ingame), true, true)
	f.Fuzz(func(t *testing.T, dialect uint8, id int32, b []byte, vital bool, state uint8, start, authed bool) {
		var d Dispatcher
		h := &fuzzHandler{t: t}
		st := Status{State: State(state % uint8(NumStates)), StartInfo: start, RconAuthed: authed}
		d.Dispatch(netproto.Dialect(dialect%3), id, b, vital, st, h)
	})
}

// fuzzHandler checks what a fuzzed message decodes to.
type fuzzHandler struct {
	nopHandler
	t *testing.T
}

func (h *fuzzHandler) Input(in *Input) {
	if len(in.Data) > netproto.MaxInputInts {
		h.t.Fatalf("input of %d ints", len(in.Data))
	}
}

func (h *fuzzHandler) RconCmd(line string) {
	if len(line) > console.MaxLine {
		h.t.Fatalf("rcon line of %d bytes", len(line))
	}
}

// TestInputs: the ring keeps the last InputRingSize inputs by tick, finds
// the first stored for a tick in ring order, forgets all on Reset, and a
// nil ring holds nothing.
func TestInputs(t *testing.T) {
	var none *Inputs
	if _, ok := none.For(0); ok {
		t.Fatal("a nil ring has an input")
	}
	r := NewInputs()
	if _, ok := r.For(0); ok {
		t.Fatal("a new ring has an input for tick 0")
	}
	for tick := range int32(InputRingSize + 10) {
		r.Store(tick, world.Input{Direction: tick % 3, TargetX: tick})
	}
	for _, tc := range []struct {
		tick int32
		ok   bool
	}{{0, false}, {9, false}, {10, true}, {InputRingSize + 9, true}, {InputRingSize + 10, false}} {
		in, ok := r.For(tc.tick)
		if ok != tc.ok || (ok && in.TargetX != tc.tick) {
			t.Errorf("For(%d) = %+v, %v; want ok %v", tc.tick, in, ok, tc.ok)
		}
	}
	r.Store(20, world.Input{TargetX: 1}) // a second input for tick 20, at index 10
	if in, _ := r.For(20); in.TargetX != 1 {
		t.Errorf("For(20) is the one at index %d, want the first in ring order", in.TargetX)
	}
	r.Reset()
	if _, ok := r.For(InputRingSize); ok {
		t.Error("an input after Reset")
	}
}

// TestInputsAccept: an input is the newest when meant for a later tick
// than the one before it, and one that came late is stored for the next
// tick.
func TestInputsAccept(t *testing.T) {
	r := NewInputs()
	for i, tc := range []struct {
		intended, cur int32
		at            int32
		newest        bool
	}{
		{10, 5, 10, true},
		{10, 5, 10, false}, // again
		{12, 5, 12, true},
		{11, 5, 11, false}, // older than the last
		{12, 5, 12, true},  // newer than the last (11)
		{13, 20, 21, true}, // late
		{0, 20, 21, false},
	} {
		if at, newest := r.Accept(tc.intended, tc.cur); at != tc.at || newest != tc.newest {
			t.Errorf("input %d: Accept(%d, %d) = %d, %v; want %d, %v", i, tc.intended, tc.cur, at, newest, tc.at, tc.newest)
		}
	}
	r.Reset()
	if _, newest := r.Accept(0, 0); !newest {
		t.Error("the first input after Reset is not the newest")
	}
}

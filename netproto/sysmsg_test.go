package netproto

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// newSysMsg returns an empty codec for a 0.7 system message id, or nil.
func newSysMsg(id int32) SysMsg {
	switch id {
	case NetmsgInfo:
		return new(MsgInfo)
	case NetmsgMapChange:
		return new(MsgMapChange)
	case NetmsgMapData:
		return new(MsgMapData)
	case NetmsgServerInfo:
		return new(MsgServerInfo)
	case NetmsgConReady, NetmsgRconAuthOn, NetmsgRconAuthOff, NetmsgReady, NetmsgEnterGame,
		NetmsgRequestMapData, NetmsgPing, NetmsgPingReply:
		return &MsgEmpty{Msg: id}
	case NetmsgSnap:
		return new(MsgSnap)
	case NetmsgSnapEmpty:
		return new(MsgSnapEmpty)
	case NetmsgSnapSingle:
		return new(MsgSnapSingle)
	case NetmsgInputTiming:
		return new(MsgInputTiming)
	case NetmsgInput:
		return new(MsgInput)
	case NetmsgRconLine:
		return new(MsgRconLine)
	case NetmsgRconCmdAdd:
		return new(MsgRconCmdAdd)
	case NetmsgRconCmdRem, NetmsgRconCmd, NetmsgRconAuth, NetmsgMaplistEntryAdd, NetmsgMaplistEntryRem:
		return &MsgString{Msg: id}
	}
	return nil
}

func TestSysMsgGolden(t *testing.T) {
	in := &MsgInput{AckTick: 100, IntendedTick: 105, NumInputs: 2, PingCorrection: 3}
	in.Inputs[0], in.Inputs[1] = -1, 64
	tests := []struct {
		name string
		m    SysMsg
		hex  string
	}{
		{"info", &MsgInfo{Version: "0.7 802f1be60a05665f", ClientVersion: 0x0705},
			"03 30 2e 37 20 38 30 32 66 31 62 65 36 30 61 30 35 36 36 35 66 00 00 85 1c"},
		{"snapsingle", &MsgSnapSingle{Tick: 1, DeltaTick: 2, CRC: -1, Data: []byte{0xaa}}, "11 01 02 40 01 aa"},
		{"snapempty", &MsgSnapEmpty{Tick: 64, DeltaTick: 1}, "0f 80 01 01"},
		{"snap", &MsgSnap{Tick: 5, DeltaTick: 6, NumParts: 2, Part: 1, CRC: 7, Data: []byte{1, 2}}, "0d 05 06 02 01 07 02 01 02"},
		{"input", in, "29 a4 01 a9 01 08 40 80 01 03"},
		{"inputtiming", &MsgInputTiming{IntendedTick: 10, TimeLeft: -20}, "15 0a 53"},
		{"ready", &MsgEmpty{Msg: NetmsgReady}, "25"},
		{"entergame", &MsgEmpty{Msg: NetmsgEnterGame}, "27"},
		{"request map data", &MsgEmpty{Msg: NetmsgRequestMapData}, "2f"},
		{"ping reply", &MsgEmpty{Msg: NetmsgPingReply}, "37"},
		{"rcon auth", &MsgString{Msg: NetmsgRconAuth, S: "pw"}, "2d 70 77 00"},
		{"rcon line", &MsgRconLine{Line: "hi"}, "1b 68 69 00"},
		{"rcon cmd add", &MsgRconCmdAdd{Name: "a", Help: "b", Params: "c"}, "1d 61 00 62 00 63 00"},
		{"map data", &MsgMapData{Data: []byte{9, 8}}, "07 09 08"},
		{"map change", &MsgMapChange{Name: "dm1", CRC: 0xf2159e6e, Size: 5805, ChunksPerRequest: 8, ChunkSize: 1384, SHA256: [32]byte{1}},
			"05 64 6d 31 00 d1 86 d3 de 01 ad 5a 08 a8 15 01" + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"},
		{"server info", &MsgServerInfo{Version: "0.7.5", Name: "n", MapName: "dm1", GameType: "DM", NumPlayers: 1, MaxPlayers: 8, NumClients: 1, MaxClients: 8},
			"09 30 2e 37 2e 35 00 6e 00 00 64 6d 31 00 44 4d 00 00 00 01 08 01 08"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Packer
			PackSys(&p, tc.m)
			want := unhex(t, tc.hex)
			if p.Err() != nil || !bytes.Equal(p.Bytes(), want) {
				t.Fatalf("packed % x, %v\nwant % x", p.Bytes(), p.Err(), want)
			}
			var u Unpacker
			u.Reset(bytes.Clone(want))
			id, sys := u.GetMsgHeader()
			if !sys || id != tc.m.ID() {
				t.Fatalf("header %d %v", id, sys)
			}
			got := newSysMsg(id)
			if err := got.Unpack(&u); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.m) {
				t.Fatalf("round trip\n got %+v\nwant %+v", got, tc.m)
			}
		})
	}
}

func TestSysMsgErrors(t *testing.T) {
	tests := []struct {
		name string
		m    SysMsg
		in   string
		err  error
	}{
		{"info truncated", new(MsgInfo), "30 00", ErrTruncated},
		{"rcon line unterminated", new(MsgRconLine), "68 69", ErrBadString},
		{"rcon cmd add unterminated", new(MsgRconCmdAdd), "61 00 62", ErrBadString},
		{"string message unterminated", &MsgString{Msg: NetmsgRconCmd}, "6c 73", ErrBadString},
		{"map change negative chunk size", new(MsgMapChange), "61 00 01 02 03 7f" + fmt.Sprintf("%064x", 0), ErrBadMessage},
		{"snap negative part", new(MsgSnap), "01 01 02 40 00 00", ErrBadMessage},
		{"server info truncated", new(MsgServerInfo), "00 00 00 00 00 00", ErrTruncated},
		{"info unterminated string", new(MsgInfo), "30 31", ErrBadString},
		{"map change no sha", new(MsgMapChange), "61 00 01 02 03 04", ErrTruncated},
		{"map change zero size", new(MsgMapChange), "61 00 01 00 03 04" + fmt.Sprintf("%064x", 0), ErrBadMessage},
		{"snap too many parts", new(MsgSnap), "01 01 41 00 00 00", ErrBadMessage},
		{"snap part out of range", new(MsgSnap), "01 01 02 02 00 00", ErrBadMessage},
		{"snap negative size", new(MsgSnap), "01 01 01 00 00 40", ErrBadMessage},
		{"snap oversized part", new(MsgSnap), "01 01 01 00 00 85 0e", ErrBadMessage},
		{"snap data truncated", new(MsgSnap), "01 01 01 00 00 05 01", ErrTruncated},
		{"snapsingle oversized", new(MsgSnapSingle), "01 01 00 85 0e", ErrBadMessage},
		{"snapsingle negative", new(MsgSnapSingle), "01 01 00 40", ErrBadMessage},
		{"snapsingle truncated", new(MsgSnapSingle), "01 01 00 03 aa", ErrTruncated},
		{"snapempty truncated", new(MsgSnapEmpty), "01", ErrTruncated},
		{"input negative size", new(MsgInput), "01 02 40", ErrNegative},
		{"input too many ints", new(MsgInput), "01 02 84 08", ErrTooLarge},
		{"input fewer ints than size", new(MsgInput), "01 02 08 01", ErrTruncated},
		{"inputtiming truncated", new(MsgInputTiming), "", ErrTruncated},
		{"server info inconsistent counts", new(MsgServerInfo), "00 00 00 00 00 00 00 05 08 01 08", ErrBadMessage},
		{"server info too many clients", new(MsgServerInfo), "00 00 00 00 00 00 00 01 08 01 81 01", ErrBadMessage},
		{"0.6 map data negative", new(Msg6MapData), "00 00 00 40", ErrNegative},
		{"0.6 map change zero size", new(Msg6MapChange), "61 00 01 00", ErrBadMessage},
		{"0.6 request negative chunk", new(Msg6RequestMapData), "40", ErrNegative},
		{"0.6 input negative", new(Msg6Input), "01 02 40", ErrNegative},
		{"0.6 input too many ints", new(Msg6Input), "01 02 84 08", ErrTooLarge},
		{"0.6 map data negative chunk", new(Msg6MapData), "00 00 40 00", ErrNegative},
		{"0.6 map data truncated", new(Msg6MapData), "00 00 00 03 aa", ErrTruncated},
		{"0.6 info unterminated", new(Msg6Info), "30 31", ErrBadString},
		{"0.6 rcon auth status truncated", new(Msg6RconAuthStatus), "", ErrTruncated},
		{"0.6 rcon auth unterminated", new(Msg6RconAuth), "00 70", ErrBadString},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var u Unpacker
			u.Reset(unhex(t, tc.in))
			if err := tc.m.Unpack(&u); !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
		})
	}
}

func TestMsgHeader(t *testing.T) {
	tests := []struct {
		name   string
		id     int32
		system bool
		hex    string
	}{
		{"INFO", NetmsgInfo, true, "03"},
		{"SNAPSINGLE", NetmsgSnapSingle, true, "11"},
		{"game message 3", 3, false, "06"},
		{"id 32 system", 32, true, "81 01"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.hex)
			if got := AppendMsgHeader(nil, tc.id, tc.system); !bytes.Equal(got, want) {
				t.Fatalf("AppendMsgHeader = % x, want % x", got, want)
			}
			var p Packer
			if p.AddMsgHeader(tc.id, tc.system); !bytes.Equal(p.Bytes(), want) {
				t.Fatalf("AddMsgHeader = % x, want % x", p.Bytes(), want)
			}
			id, sys, n, err := ParseMsgHeader(append(want, 0xaa))
			if err != nil || id != tc.id || sys != tc.system || n != len(want) {
				t.Fatalf("ParseMsgHeader = %d, %v, %d, %v", id, sys, n, err)
			}
		})
	}
	for _, in := range []string{"", "80"} {
		if _, _, n, err := ParseMsgHeader(unhex(t, in)); !errors.Is(err, ErrTruncated) || n != 0 {
			t.Fatalf("ParseMsgHeader(%q) = %d, %v", in, n, err)
		}
	}
}

func TestSysMsg6RoundTrip(t *testing.T) {
	in6 := &Msg6Input{}
	in6.AckTick, in6.IntendedTick, in6.NumInputs, in6.Inputs[0] = 1, 2, 1, 3
	for _, m := range []SysMsg{
		&Msg6Info{Version: "0.6 626fce9a778df4d4", Password: "x"},
		&Msg6MapChange{Name: "dm1", CRC: 0xffffffff, Size: 10},
		&Msg6MapData{Last: 1, CRC: 5, Chunk: 3, Data: []byte{1, 2, 3}},
		&Msg6RequestMapData{Chunk: 7},
		in6,
		&Msg6RconAuthStatus{Authed: 1, CmdList: 1},
		&Msg6RconAuth{Name: "", Password: "pw", SendCmdList: 1},
	} {
		t.Run(fmt.Sprintf("%T", m), func(t *testing.T) {
			var p Packer
			PackSys(&p, m)
			var u Unpacker
			u.Reset(p.Bytes())
			if id, sys := u.GetMsgHeader(); id != m.ID() || !sys {
				t.Fatalf("header %d", id)
			}
			got := reflect.New(reflect.TypeOf(m).Elem()).Interface().(SysMsg)
			if err := got.Unpack(&u); err != nil || !reflect.DeepEqual(got, m) {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
}

// TestSysMsgCaptures decodes every 0.7 system message in the captures and
// checks that packing it again gives the captured bytes.
func TestSysMsgCaptures(t *testing.T) {
	seen := map[int32]int{}
	dec := make([]byte, 0, MaxPayload)
	for _, name := range captures07 {
		for _, cp := range loadCapture(t, name) {
			if IsConnless(cp.data) {
				continue
			}
			h, payload, err := ParsePacket(cp.data)
			if err != nil || h.Flags&FlagControl != 0 {
				continue
			}
			raw, err := DecodePayload(dec, h, payload)
			if err != nil {
				t.Fatal(err)
			}
			var r ChunkReader
			r.Reset(raw, int(h.NumChunks))
			for c, ok := r.Next(); ok; c, ok = r.Next() {
				var u Unpacker
				u.Reset(bytes.Clone(c.Data))
				id, sys := u.GetMsgHeader()
				if !sys {
					continue
				}
				m := newSysMsg(id)
				if m == nil {
					t.Fatalf("unknown system message %d in %s", id, name)
				}
				if err := m.Unpack(&u); err != nil {
					t.Fatalf("%s: message %d (% x): %v", name, id, c.Data, err)
				}
				if u.Remaining() != 0 {
					t.Fatalf("%s: message %d left %d bytes", name, id, u.Remaining())
				}
				var p Packer
				PackSys(&p, m)
				if !bytes.Equal(p.Bytes(), c.Data) {
					t.Fatalf("%s: message %d repacked\n got % x\nwant % x", name, id, p.Bytes(), c.Data)
				}
				seen[id]++
			}
		}
	}
	for _, id := range []int32{NetmsgInfo, NetmsgMapChange, NetmsgMapData, NetmsgServerInfo, NetmsgConReady,
		NetmsgSnapSingle, NetmsgSnapEmpty, NetmsgInputTiming, NetmsgReady, NetmsgEnterGame, NetmsgInput, NetmsgRequestMapData} {
		if seen[id] == 0 {
			t.Errorf("no message %d in captures", id)
		}
	}
	t.Logf("system messages seen: %v", seen)
}

func TestSysMsgAllocs(t *testing.T) {
	var p Packer
	in := &MsgInput{AckTick: 100, IntendedTick: 105, NumInputs: 10}
	snap := &MsgSnapSingle{Tick: 1000, DeltaTick: 1, CRC: 12345, Data: make([]byte, 800)}
	var u Unpacker
	var out MsgInput
	allocs := testing.AllocsPerRun(100, func() {
		p.Reset()
		PackSys(&p, in)
		u.Reset(p.Bytes())
		u.GetMsgHeader()
		out.Unpack(&u)
		p.Reset()
		PackSys(&p, snap)
	})
	if allocs != 0 {
		t.Fatalf("%v allocs", allocs)
	}
}

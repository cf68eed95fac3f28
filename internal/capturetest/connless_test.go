package capturetest

import (
	"bytes"
	"testing"

	"twserver/netproto"
)

// TestConnlessCaptures decodes the 0.7 connless server-info exchange of
// twinfo_06_07.pcap: every gie3 request carries one browser token, every inf3
// reply is the token, the SERVERINFO body (netproto.MsgServerInfo) and one
// entry per client, with nothing left over; packing the decoded reply again
// gives the captured bytes.
func TestConnlessCaptures(t *testing.T) {
	const magicLen = 8
	var requests, replies, clients int
	for _, cp := range load07(t, "twinfo_06_07.pcap") {
		if !netproto.IsConnless(cp.Payload) {
			continue
		}
		_, payload, err := netproto.ParseConnless(cp.Payload)
		if err != nil {
			t.Fatalf("packet %d: %v", cp.Index, err)
		}
		if len(payload) < magicLen || !bytes.Equal(payload[:4], []byte{0xff, 0xff, 0xff, 0xff}) {
			t.Fatalf("packet %d: no connless magic: %s", cp.Index, fmtHex(payload))
		}
		var u netproto.Unpacker
		u.Reset(bytes.Clone(payload[magicLen:]))
		token := u.GetInt()
		switch string(payload[4:magicLen]) {
		case "gie3":
			requests++
			if u.Err() != nil || u.Remaining() != 0 {
				t.Errorf("packet %d: request: %v, %d bytes left", cp.Index, u.Err(), u.Remaining())
			}
		case "inf3":
			replies++
			var info netproto.MsgServerInfo
			if err := info.Unpack(&u); err != nil {
				t.Errorf("packet %d: MsgServerInfo: %v: %s", cp.Index, err, fmtHex(payload))
				continue
			}
			var p netproto.Packer
			p.AddRaw(payload[:magicLen])
			p.AddInt(token)
			info.Pack(&p)
			n := int32(0)
			for u.Remaining() > 0 && u.Err() == nil {
				name, clan := u.GetString(), u.GetString()
				country, score, typ := u.GetInt(), u.GetInt(), u.GetInt()
				p.AddString(name)
				p.AddString(clan)
				p.AddInt(country)
				p.AddInt(score)
				p.AddInt(typ)
				n++
			}
			clients += int(n)
			if u.Err() != nil || n != info.NumClients {
				t.Errorf("packet %d: %d client entries (%v), info says %d", cp.Index, n, u.Err(), info.NumClients)
			}
			if !bytes.Equal(p.Bytes(), payload) {
				t.Errorf("packet %d: reply packs to\n%s\nwant\n%s", cp.Index, fmtHex(p.Bytes()), fmtHex(payload))
			}
			t.Logf("packet %d: %q %q map %q type %q players %d/%d clients %d/%d", cp.Index, info.Version, info.Name, info.MapName, info.GameType, info.NumPlayers, info.MaxPlayers, info.NumClients, info.MaxClients)
		default:
			t.Errorf("packet %d: unexpected connless message %q", cp.Index, payload[4:magicLen])
		}
	}
	t.Logf("%d info requests, %d replies with %d client entries", requests, replies, clients)
	if requests != 6 || replies != 6 {
		t.Errorf("%d requests and %d replies, want 6 and 6", requests, replies)
	}
}

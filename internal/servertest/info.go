package servertest

import (
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"twserver/edge"
	"twserver/netproto"
)

// InfoRow is one client row of a 0.7 server info.
type InfoRow struct {
	Name string
	// Type is the client type: bit 0 spectator, bit 1 bot.
	Type int32
}

// Info7 asks the server at addr for its 0.7 server info over UDP (token
// request, then gie3) as a browser does and returns the player count and
// the client rows.
func Info7(t testing.TB, addr netip.AddrPort) (players int, rows []InfoRow) {
	t.Helper()
	_, players, rows = info7(t, addr)
	return players, rows
}

// Info7Version is Info7's query returning the info's version string.
func Info7Version(t testing.TB, addr netip.AddrPort) string {
	t.Helper()
	v, _, _ := info7(t, addr)
	return v
}

func info7(t testing.TB, addr netip.AddrPort) (version string, players int, rows []InfoRow) {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	to := net.UDPAddrFromAddrPort(addr)
	var b [2048]byte
	read := func() []byte {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, err := c.Read(b[:])
		if err != nil {
			t.Fatalf("info query: %v", err)
		}
		return b[:n]
	}
	_, _ = c.WriteToUDP(netproto.AppendTokenRequest(nil, 0x0a0b0c0d), to)
	_, payload, err := netproto.ParsePacket(read())
	if err != nil {
		t.Fatal(err)
	}
	ctl, _ := netproto.ParseControl(payload)
	_, _ = c.WriteToUDP(netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: ctl.Token, ResponseToken: 0x0a0b0c0d},
		append([]byte(edge.MagicGetInfo), 7)), to)
	_, payload, err = netproto.ParseConnless(read())
	if err != nil || !strings.HasPrefix(string(payload), edge.MagicInfo) {
		t.Fatalf("info reply: %v", err)
	}
	var u netproto.Unpacker
	u.Reset(payload[len(edge.MagicInfo)+1:])
	version = u.GetString()
	for range 4 { // name, hostname, map, game type
		u.GetString()
	}
	u.GetInt() // flags
	u.GetInt() // skill level
	players = int(u.GetInt())
	u.GetInt() // max players
	clients := int(u.GetInt())
	u.GetInt() // max clients
	for range clients {
		name := u.GetString()
		u.GetString() // clan
		u.GetInt()    // country
		u.GetInt()    // score
		rows = append(rows, InfoRow{Name: name, Type: u.GetInt()})
	}
	if u.Err() != nil {
		t.Fatalf("info: %v", u.Err())
	}
	return version, players, rows
}

// InfoBots counts the rows of rows with the bot type bit.
func InfoBots(rows []InfoRow) (n int) {
	for _, r := range rows {
		if r.Type&2 != 0 {
			n++
		}
	}
	return n
}

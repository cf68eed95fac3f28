package server

import (
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/demo"
	"twserver/dialect6"
	"twserver/edge"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/observe"
	"twserver/session"
	"twserver/snap"
	"twserver/teehist"
	"twserver/world"
)

// testClient6 is a minimal DDNet-dialect 0.6 client for tests: the
// security-token handshake, INFO, READY without downloading the map (the
// server cannot tell), Cl_StartInfo, ENTERGAME, then INPUT every 20 ms
// acknowledging the 0.6 snapshots it reconstructs. It keeps the chat lines
// and the in-game server infos (connless inf3, token -1) it gets.
type testClient6 struct {
	t     *testing.T
	name  string
	raw   *rawPeer
	conn  netproto.Conn
	start time.Time
	recv  *snap.Receiver

	infoSent, entered bool
	snaps             int
	lastTick          int32
	chats             []string   // Sv_Chat texts, "*** " before server lines
	serverInfos       [][]string // fields after the magic of each inf3 received

	pk netproto.Packer
	up netproto.Unpacker
}

// join6 brings a 0.6 test client into the game.
func join6(t *testing.T, ts *testServer, addr netip.AddrPort, name string) *testClient6 {
	t.Helper()
	c := &testClient6{t: t, name: name, raw: newRawPeer(t, ts, addr), start: time.Now(),
		recv: snap.NewReceiver(snap.MsgIDs6, snap.Sizes6)}
	c.conn.Connect6(c.now(), true)
	c.run(2 * time.Second)
	if c.snaps < 2 {
		t.Fatalf("%s: not in game after 2 s: conn=%v entered=%v snaps=%d\nlogs:\n%s", name, c.conn.State(), c.entered, c.snaps, ts.logs.String())
	}
	return c
}

func (c *testClient6) now() time.Duration { return time.Since(c.start) }

// run processes traffic for d, in 20 ms steps.
func (c *testClient6) run(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if !c.infoSent && c.conn.State() == netproto.StateOnline {
			c.infoSent = true
			c.sys(netproto.Netmsg6Info, func(p *netproto.Packer) { p.AddString(session.NetVersion6); p.AddString("") })
		}
		select {
		case b, ok := <-c.raw.got:
			if !ok {
				return
			}
			c.feed(b)
		case <-time.After(20 * time.Millisecond):
			if c.snaps >= 2 {
				c.sys(netproto.Netmsg6Input, func(p *netproto.Packer) {
					p.AddInt(c.lastTick)
					p.AddInt(c.lastTick + 1)
					p.AddInt(40)
					for range 10 {
						p.AddInt(0)
					}
				})
			}
		}
		c.conn.Update(c.now())
		c.flush()
	}
}

func (c *testClient6) flush() {
	for p, ok := c.conn.Poll(nil); ok; p, ok = c.conn.Poll(nil) {
		c.raw.send(p)
	}
}

// sys queues a system message, vital but INPUT.
func (c *testClient6) sys(id int32, fill func(p *netproto.Packer)) {
	c.pk.Reset()
	c.pk.AddMsgHeader(id, true)
	if fill != nil {
		fill(&c.pk)
	}
	flags := netproto.SendVital | netproto.SendFlush
	if id == netproto.Netmsg6Input {
		flags = netproto.SendFlush
	}
	_ = c.conn.Send(c.now(), c.pk.Bytes(), flags)
}

// info sends Cl_StartInfo (start) or Cl_ChangeInfo.
func (c *testClient6) info(start bool, name, clan string, country int32, skin string) {
	id := int32(dialect6.MsgClChangeInfo)
	if start {
		id = dialect6.MsgClStartInfo
	}
	c.pk.Reset()
	c.pk.AddMsgHeader(id, false)
	c.pk.AddString(name)
	c.pk.AddString(clan)
	c.pk.AddInt(country)
	c.pk.AddString(skin)
	c.pk.AddInt(0)
	c.pk.AddInt(0)
	c.pk.AddInt(0)
	_ = c.conn.Send(c.now(), c.pk.Bytes(), netproto.SendVital|netproto.SendFlush)
	c.flush()
}

var inf3Prefix = []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffinf3")

func (c *testClient6) feed(b []byte) {
	if rest, ok := bytes.CutPrefix(b, inf3Prefix); ok {
		c.serverInfos = append(c.serverInfos, strings.Split(string(rest), "\x00"))
		return
	}
	if c.conn.FeedDatagram(c.now(), b, nil) != nil {
		return
	}
	for ch, ok := c.conn.Recv(); ok; ch, ok = c.conn.Recv() {
		c.onMessage(ch.Data)
	}
}

func (c *testClient6) onMessage(data []byte) {
	id, system, n, err := netproto.ParseMsgHeader(data)
	if err != nil {
		c.t.Errorf("%s: bad message header", c.name)
		return
	}
	u := &c.up
	u.Reset(data[n:])
	if !system {
		switch id {
		case dialect6.MsgSvChat:
			_ = u.GetInt() // team
			from := u.GetInt()
			text := u.GetString()
			if from < 0 {
				text = "*** " + text
			}
			c.chats = append(c.chats, text)
		case dialect6.MsgSvReadyToEnter:
			c.sys(netproto.Netmsg6EnterGame, nil)
			c.entered = true
		}
		return
	}
	switch id {
	case netproto.Netmsg6MapChange:
		c.sys(netproto.Netmsg6Ready, nil)
	case netproto.Netmsg6ConReady:
		c.info(true, c.name, "", -1, "default")
	case netproto.Netmsg6Snap, netproto.Netmsg6SnapEmpty, netproto.Netmsg6SnapSingle:
		tick, done, err := c.recv.Handle(id, data[n:])
		if err != nil {
			c.t.Errorf("%s: snapshot error: %v", c.name, err)
			return
		}
		if done {
			c.snaps++
			c.lastTick = tick
		}
	}
}

// clientInfo returns name, clan and country of client id's ClientInfo in
// the newest snapshot (ok false when it has none).
func (c *testClient6) clientInfo(id int) (name, clan string, country int32, ok bool) {
	sn, _ := c.recv.Latest()
	if sn == nil {
		return "", "", 0, false
	}
	i := sn.Find(snap.Key(dialect6.ObjClientInfo, uint16(id)))
	if i < 0 {
		return "", "", 0, false
	}
	d := sn.ItemData(i)
	return snap.IntsToStr(d[0:4]), snap.IntsToStr(d[4:7]), d[7], true
}

// play runs the 0.7 and 0.6 clients side by side for d.
func play(d time.Duration, c7 []*testClient, c6 []*testClient6) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for _, c := range c7 {
			c.run(20 * time.Millisecond)
		}
		for _, c := range c6 {
			c.run(20 * time.Millisecond)
		}
	}
}

// TestUniqueName: which clients hold a name (session.UniqueName has the
// rule): those that sent their start info, of either dialect, but the one
// asking.
func TestUniqueName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		others []string // names of clients 1, 2, ... ("" = not yet ready)
		req    string
		want   string
	}{
		{"free", []string{"alice"}, "bob", "bob"},
		{"taken", []string{"alice"}, "alice", "(1)alice"},
		{"taken twice", []string{"alice", "(1)alice"}, "alice", "(2)alice"},
		{"own name", []string{"alice"}, "p0", "p0"},
		{"empty", nil, " ", "(1)"},
		{"held by a client not ready yet", []string{"-alice"}, "alice", "alice"},
		{"taken by a 0.6 client", []string{"6alice"}, "alice", "(1)alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := poolTestServer(t, &discardConn{}, 1+len(tc.others), nil)
			mix06(s, 1+len(tc.others))
			for i, n := range tc.others {
				o := s.clients[1+i]
				switch {
				case strings.HasPrefix(n, "-"):
					n, o.state = n[1:], stateConnecting
				case strings.HasPrefix(n, "6"):
					n = n[1:]
					if !o.conn.Dialect().Is6() {
						t.Fatalf("client %d is not a 0.6 client", 1+i)
					}
				}
				o.name = n
			}
			if got := s.uniqueName(s.clients[0], tc.req); got != tc.want {
				t.Errorf("uniqueName(%q) = %q, want %q", tc.req, got, tc.want)
			}
		})
	}
}

// TestChangeInfo6Interval: a 0.6 info change is applied at most once per
// changeInfoInterval, the start info counting as one, unless
// sv_spamprotection is off; a client not in game changes nothing.
func TestChangeInfo6Interval(t *testing.T) {
	change := func(s *Server, name string) {
		var p netproto.Packer
		p.AddString(name)
		p.AddString("clan")
		p.AddInt(276)
		p.AddString("bluekitty")
		for range 3 {
			p.AddInt(0)
		}
		s.onGameMessage6(s.clients[1], dialect6.MsgClChangeInfo, p.Bytes())
	}
	for _, tc := range []struct {
		name      string
		spam      bool
		lastStart time.Duration // when the start info came (0: never)
		at        []time.Duration
		want      string
	}{
		{"first", true, 0, []time.Duration{time.Second}, "a0"},
		{"second too soon", true, 0, []time.Duration{time.Second, 5*time.Second + 999*time.Millisecond}, "a0"},
		{"second after 5 s", true, 0, []time.Duration{time.Second, 6 * time.Second}, "a1"},
		{"soon after the start info", true, time.Second, []time.Duration{5 * time.Second}, "p1"},
		{"5 s after the start info", true, time.Second, []time.Duration{6 * time.Second}, "a0"},
		{"spam protection off", false, time.Second, []time.Duration{time.Second, time.Second}, "a1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var now time.Duration
			s := poolTestServer(t, &discardConn{}, 2, nil, func(s *Server) { s.clock = func() time.Duration { return now } })
			s.cfg.Game.SpamProtection = tc.spam
			mix06(s, 2) // client 1 speaks DDNet's 0.6
			s.clients[1].lastSkin = tc.lastStart
			for i, at := range tc.at {
				now = at
				change(s, "a"+strconv.Itoa(i))
			}
			if c := s.clients[1]; c.name != tc.want {
				t.Errorf("name %q, want %q", c.name, tc.want)
			}
		})
	}
	s := poolTestServer(t, &discardConn{}, 2, nil)
	mix06(s, 2)
	s.clients[1].state = stateReady
	change(s, "late")
	if c := s.clients[1]; c.name != "p1" || c.clan != "" {
		t.Errorf("a client not in game changed its info: %q %q", c.name, c.clan)
	}
}

// TestRename6: a DDNet-dialect 0.6 client and a 0.7 client over the
// server's UDP protocol. The 0.6 player renames to the 0.7 player's name:
// it gets the unique form, everybody gets the reference's chat line, the
// 0.7 client a silent Sv_ClientDrop and a silent Sv_ClientInfo with the new
// name, clan and country (DDNet's way for 0.7 clients), the 0.6 client its
// new name in its snapshots' ClientInfo; the browser info (inf3), the
// console and the side channels' server info name it so, and so does a
// vote against it. A second change within the interval is ignored. A
// run-time sv_name reaches the 0.6 client as inf3 (token -1) and the 0.7
// client as NETMSG_SERVERINFO.
func TestRename6(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var lastInfo *observe.Info
		ts := startServerWith(t, nil, func(s *Server) {
			s.Observe(func(e observe.Event) {
				if e.Kind == observe.EventInfo {
					mu.Lock()
					lastInfo = e.Info
					mu.Unlock()
				}
			})
		})
		a := join(t, ts, cl1Addr, "alice")
		six := join6(t, ts, cl2Addr, "sixer")
		c7, c6 := []*testClient{a}, []*testClient6{six}
		sid := 1
		if name, _, _, ok := six.clientInfo(sid); !ok || name != "sixer" {
			t.Fatalf("the 0.6 client's own ClientInfo: %q %v", name, ok)
		}
		play(changeInfoInterval, c7, c6) // the start info counts as a change

		games := len(a.games)
		six.info(false, "alice", "clan6", 276, "bluekitty")
		play(time.Second, c7, c6)
		const line = "'sixer' changed name to '(1)alice'"
		var chat, drop, info int = -1, -1, -1
		for i, m := range a.games[games:] {
			switch m := m.(type) {
			case *gamemsg.SvChat:
				if m.ClientID == -1 && m.Message == line {
					chat = i
				}
			case *gamemsg.SvClientDrop:
				if m.ClientID == int32(sid) {
					if !m.Silent || m.Reason != "" || drop >= 0 {
						t.Errorf("0.7 client: drop %+v", m)
					}
					drop = i
				}
			case *gamemsg.SvClientInfo:
				if m.ClientID == int32(sid) {
					if m.Name != "(1)alice" || m.Clan != "clan6" || m.Country != 276 || !m.Silent || m.Local || info >= 0 {
						t.Errorf("0.7 client: client info %+v", m)
					}
					if m.Skin.PartNames[0] != dialect6.Skin7From6(dialect6.Skin6{Name: "bluekitty"}).PartNames[0] {
						t.Errorf("0.7 client: skin %v", m.Skin.PartNames)
					}
					info = i
				}
			case *gamemsg.SvSkinChange:
				t.Errorf("0.7 client: a skin change came with the rename: %+v", m)
			}
		}
		if chat < 0 || drop <= chat || info != drop+1 {
			t.Errorf("0.7 client: chat line at %d, drop at %d, client info at %d (want chat, drop, info right after)", chat, drop, info)
		}
		if !containsStr(six.chats, "*** "+line) {
			t.Errorf("0.6 client's chat: %q", six.chats)
		}
		if name, clan, country, ok := six.clientInfo(sid); name != "(1)alice" || clan != "clan6" || country != 276 || !ok {
			t.Errorf("0.6 client's snapshot: ClientInfo %q %q %d (%v)", name, clan, country, ok)
		}
		if name, _, _, _ := six.clientInfo(0); name != "alice" {
			t.Errorf("0.6 client's snapshot: the 0.7 player is %q", name)
		}

		// A second change within the interval is ignored, whole.
		chats := len(six.chats)
		six.info(false, "carol", "other", 40, "default")
		play(time.Second, c7, c6)
		if name, clan, _, _ := six.clientInfo(sid); name != "(1)alice" || clan != "clan6" || len(six.chats) != chats {
			t.Errorf("a change within %v was applied: %q %q, chat %q", changeInfoInterval, name, clan, six.chats[chats:])
		}

		// The browser info, the console, the side channels and votes.
		p := newRawPeer(t, ts, netipFrom("127.0.0.9:50009"))
		p.send(netproto.AppendConnless6(nil, append(append([]byte(nil), []byte(edge.MagicGetInfo)...), 7)))
		if b := p.next(); !bytes.Contains(b, []byte("\x00(1)alice\x00clan6\x00276\x00")) {
			t.Errorf("inf3 without the new name: %q", b)
		}
		mark := len(ts.logs.String())
		if _, err := io.WriteString(ts.cons, "status\n"); err != nil {
			t.Fatal(err)
		}
		play(200*time.Millisecond, c7, c6)
		if !strings.Contains(ts.logs.String()[mark:], `name='(1)alice'`) {
			t.Errorf("status without the new name:\n%s", ts.logs.String()[mark:])
		}
		mu.Lock()
		if lastInfo == nil || len(lastInfo.Clients) != 2 || lastInfo.Clients[sid].Name != "(1)alice" || lastInfo.Clients[sid].Clan != "clan6" {
			t.Errorf("side channels' server info: %+v", lastInfo)
		}
		mu.Unlock()
		a.sendGame(&gamemsg.ClCallVote{Type: "spectate", Value: strconv.Itoa(sid), Reason: "test"})
		play(500*time.Millisecond, c7, c6)
		if vs := gamesOf[*gamemsg.SvVoteSet](a); len(vs) == 0 || !strings.Contains(vs[len(vs)-1].Description, "(1)alice") {
			t.Errorf("spectate vote: %+v", vs)
		}

		// Later the same name (it stays the unique form) with another skin:
		// Sv_SkinChange alone; the same info once more: nothing.
		for i, want := range []int{1, 0} {
			play(changeInfoInterval, c7, c6)
			games := len(a.games)
			six.info(false, "alice", "clan6", 276, "default")
			play(500*time.Millisecond, c7, c6)
			skins, other := 0, 0
			for _, m := range a.games[games:] {
				switch m.(type) {
				case *gamemsg.SvSkinChange:
					skins++
				case *gamemsg.SvClientDrop, *gamemsg.SvClientInfo, *gamemsg.SvChat:
					other++
				}
			}
			if name, _, _, _ := six.clientInfo(sid); skins != want || other != 0 || name != "(1)alice" {
				t.Errorf("info again (%d): %d skin changes, %d other messages to the 0.7 client; name %q", i, skins, other, name)
			}
		}

		// sv_name at run time.
		infos, names := len(six.serverInfos), len(a.serverNames)
		if _, err := io.WriteString(ts.cons, "sv_name renamed server\n"); err != nil {
			t.Fatal(err)
		}
		play(500*time.Millisecond, c7, c6)
		if got := six.serverInfos[infos:]; len(got) != 1 || len(got[0]) < 3 || got[0][0] != "-1" || got[0][2] != "renamed server" {
			t.Errorf("0.6 client's inf3 after sv_name: %q", got)
		}
		if got := a.serverNames[names:]; len(got) != 1 || got[0] != "renamed server" {
			t.Errorf("0.7 client's server infos after sv_name: %q", got)
		}
		// sv_hostname is in no in-game info of a 0.6 client; 0.7.5 does not resend for it.
		infos, names = len(six.serverInfos), len(a.serverNames)
		if _, err := io.WriteString(ts.cons, "sv_hostname example.invalid\n"); err != nil {
			t.Fatal(err)
		}
		play(500*time.Millisecond, c7, c6)
		if len(six.serverInfos) != infos || len(a.serverNames) != names {
			t.Errorf("sv_hostname pushed %q (0.6) %q (0.7)", six.serverInfos[infos:], a.serverNames[names:])
		}
	})
}

// eachTeehistMessage calls f with every message of the teehistorian file
// at path (f must not keep it).
func eachTeehistMessage(t *testing.T, path string, f func(*teehist.Message)) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r := teehist.NewReader(file)
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	var m teehist.Message
	for r.Next(&m) == nil {
		f(&m)
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestRecordRename6: a game with a 0.6 player's rename records the new
// name in the teehistorian (PLAYER_NAME, as DDNet does) and replays
// without divergence; the 0.7 demo has the chat line and the new name in
// its De_ClientInfo from then on, and no Sv_ClientDrop/Sv_ClientInfo
// (the reference never records them).
func TestRecordRename6(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		ts := startServer(t, func(c *config.Config) {
			c.Record.Teehistorian = true
			c.Record.Demo = true
			c.Record.Dir = dir
		})
		a := join(t, ts, cl1Addr, "alice")
		six := join6(t, ts, cl2Addr, "sixer")
		a.direction = 1
		c7, c6 := []*testClient{a}, []*testClient6{six}
		play(changeInfoInterval+time.Second, c7, c6)
		six.info(false, "renamed", "", -1, "default")
		play(2*time.Second, c7, c6)
		ts.stop(t)

		files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
		if len(files) != 1 {
			t.Fatalf("%d teehistorian files", len(files))
		}
		_, res := replayFile(t, files[0])
		if res.Divergence != nil || !res.Finished || res.Compared < 100 {
			t.Errorf("replay: divergence %v, finished %v, %d compared", res.Divergence, res.Finished, res.Compared)
		}
		var names []string
		eachTeehistMessage(t, files[0], func(m *teehist.Message) {
			if m.Kind == teehist.KindEx && m.Ex == teehist.ExPlayerName {
				if fs, err := teehist.DecodeEx(teehist.ExPlayerName, m.Data); err == nil && len(fs) == 2 && fs[0].Int == 1 {
					names = append(names, fs[1].Str)
				}
			}
		})
		if fmt.Sprint(names) != "[sixer renamed]" {
			t.Errorf("PLAYER_NAME of the 0.6 player: %q", names)
		}

		demos, _ := filepath.Glob(filepath.Join(dir, "*.demo"))
		if len(demos) != 1 {
			t.Fatalf("%d demos", len(demos))
		}
		data, err := os.ReadFile(demos[0])
		if err != nil {
			t.Fatal(err)
		}
		_, ticks, err := demo.ReadAll(data, snap.Sizes7)
		if err != nil {
			t.Fatal(err)
		}
		var chatAt, firstNew, lastOld int32 = -1, -1, -1
		var up netproto.Unpacker
		for _, tk := range ticks {
			for _, raw := range tk.Messages {
				id, _, n, err := netproto.ParseMsgHeader(raw)
				if err != nil {
					t.Fatal(err)
				}
				up.Reset(raw[n:])
				msg, err := gamemsg.Decode(id, decoder{&up})
				if err != nil {
					t.Fatalf("demo message %d: %v", id, err)
				}
				switch msg := msg.(type) {
				case *gamemsg.SvChat:
					if msg.Message == "'sixer' changed name to 'renamed'" {
						chatAt = tk.Tick
					}
				case *gamemsg.SvClientDrop, *gamemsg.SvClientInfo:
					t.Errorf("demo holds %T", msg)
				}
			}
			if i := tk.Snap.Find(snap.Key(world.ObjDeClientInfo, 1)); i >= 0 {
				switch snap.IntsToStr(tk.Snap.ItemData(i)[2:6]) {
				case "renamed":
					if firstNew < 0 {
						firstNew = tk.Tick
					}
				case "sixer":
					lastOld = tk.Tick
				}
			}
		}
		if chatAt < 0 || firstNew < 0 || lastOld < 0 || lastOld > firstNew || firstNew-chatAt > 2 {
			t.Errorf("demo: chat line at tick %d, De_ClientInfo old name until %d, new from %d", chatAt, lastOld, firstNew)
		}
	})
}

package session

import (
	"fmt"
	"testing"

	"twserver/console"
	"twserver/netproto"
)

// TestRconAuth: a sequence of logins on one slot and what each answers.
func TestRconAuth(t *testing.T) {
	type step struct {
		password, pw string
		reply        string
		granted      bool
		exhausted    bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"no password: said once", []step{
			{"", "x", console.LoginNoPassword, false, false},
			{"", "x", "", false, false},
		}},
		{"granted, then nothing", []step{
			{"pw", "pw", console.LoginGranted, true, false},
			{"pw", "pw", "", false, false},
			{"pw", "wrong", "", false, false},
		}},
		{"wrong passwords until exhausted", []step{
			{"pw", "a", "Wrong password 1/3.", false, false},
			{"pw", "b", "Wrong password 2/3.", false, false},
			{"pw", "c", "Wrong password 3/3.", false, true},
		}},
		{"wrong, then right", []step{
			{"pw", "a", "Wrong password 1/3.", false, false},
			{"pw", "pw", console.LoginGranted, true, false},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Rcon
			for i, st := range tc.steps {
				l := r.Auth(st.password, st.pw, 3)
				if l.Reply != st.reply || l.Granted != st.granted || l.Exhausted != st.exhausted {
					t.Fatalf("step %d: %+v, want reply %q granted %v exhausted %v", i, l, st.reply, st.granted, st.exhausted)
				}
				if st.granted && !r.Authed {
					t.Fatalf("step %d: granted but not authed", i)
				}
			}
		})
	}
}

// TestRconLogout: a logout ends the login and forgets the wrong
// passwords, but the warning about no password is not repeated.
func TestRconLogout(t *testing.T) {
	var r Rcon
	r.Auth("", "", 3)
	r.Auth("pw", "a", 3)
	r.Auth("pw", "pw", 3)
	r.Announce(true, []string{"dm1"})
	r.Logout()
	if r.Authed || r.tries != 0 || r.maps != nil || !r.noPwWarned {
		t.Fatalf("after logout: %+v", r)
	}
	if l := r.Auth("pw", "a", 3); l.Reply != "Wrong password 1/3." {
		t.Fatalf("first wrong password after logout: %q", l.Reply)
	}
}

// sent counts what SendLists sends, by message header.
type sent struct {
	msgs  map[string]int
	vital bool
}

func (s *sent) Send(msg []byte, flags netproto.SendFlags) {
	id, _, _, _ := netproto.ParseMsgHeader(msg)
	s.msgs[fmt.Sprint(id)]++
	s.vital = s.vital && flags&netproto.SendVital != 0
}

// TestRconLists: the lists go out RconCmdsPerTick commands and
// RconMapsPerTick maps per call, in the slot's dialect, only while logged
// in; without cmdList only the maps; at most MaxMapListEntries maps.
func TestRconLists(t *testing.T) {
	cmds := len(console.RconCommands())
	maps := make([]string, MaxMapListEntries+10)
	for i := range maps {
		maps[i] = fmt.Sprint("map", i)
	}
	for _, tc := range []struct {
		name    string
		d       netproto.Dialect
		cmdList bool
		cmdID   int32
		wantCmd int
		mapID   int32
		wantMap int
	}{
		{"0.7", netproto.Dialect7, true, netproto.NetmsgRconCmdAdd, cmds, netproto.NetmsgMaplistEntryAdd, MaxMapListEntries},
		{"0.6 without commands", netproto.Dialect6, false, netproto.Netmsg6RconCmdAdd, 0, -1, 0},
		{"DDNet", netproto.DialectDDNet, true, netproto.Netmsg6RconCmdAdd, cmds, -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Rcon
			var p netproto.Packer
			out := &sent{msgs: map[string]int{}, vital: true}
			r.SendLists(tc.d, &p, out)
			if len(out.msgs) != 0 {
				t.Fatalf("sent %v before a login", out.msgs)
			}
			r.Auth("pw", "pw", 0)
			r.Announce(tc.cmdList, maps)
			for calls := 1; ; calls++ {
				before := out.msgs[fmt.Sprint(tc.cmdID)] + out.msgs[fmt.Sprint(tc.mapID)]
				r.SendLists(tc.d, &p, out)
				n := out.msgs[fmt.Sprint(tc.cmdID)] + out.msgs[fmt.Sprint(tc.mapID)] - before
				if n > RconCmdsPerTick+RconMapsPerTick {
					t.Fatalf("call %d sent %d", calls, n)
				}
				if n == 0 {
					break
				}
			}
			if got := out.msgs[fmt.Sprint(tc.cmdID)]; got != tc.wantCmd {
				t.Errorf("%d commands, want %d", got, tc.wantCmd)
			}
			if tc.mapID >= 0 {
				if got := out.msgs[fmt.Sprint(tc.mapID)]; got != tc.wantMap {
					t.Errorf("%d maps, want %d", got, tc.wantMap)
				}
			}
			if !out.vital {
				t.Error("a list message not vital")
			}
		})
	}
}

// TestListTurn: each slot is served once every RconListGroups ticks.
func TestListTurn(t *testing.T) {
	for id := range 20 {
		n := 0
		for tick := int32(100); tick < 100+RconListGroups; tick++ {
			if ListTurn(id, tick) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("slot %d served %d times in %d ticks", id, n, RconListGroups)
		}
	}
}

package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDefaultValid(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("default config invalid: %v", err)
	}
	if c.Server.Port != 8303 || c.Server.MaxClientsPerIP != 4 || c.Game.Type != "dm" {
		t.Fatalf("unexpected defaults: %+v", c)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string // substring; empty = success
		check   func(*testing.T, Config)
	}{
		{name: "empty", in: "", check: func(t *testing.T, c Config) {
			if c.Server.Port != 8303 {
				t.Errorf("port = %d", c.Server.Port)
			}
		}},
		{name: "full", in: `
[server]
name = "test server"
bind = "127.0.0.1"
port = 8305
max_clients = 16
player_slots = 12
max_clients_per_ip = 2
password = "pw"
rcon_password = "admin"
snapshot_rate = 50
[map]
dir = "maps"
rotation = ["a", "b"]
[game]
type = "ctf"
score_limit = 500
time_limit = 10
warmup = 5
[log]
level = "debug"
format = "json"
[[vote]]
description = "Restart"
command = "restart"
[[vote]]
description = "Map b"
command = "change_map b"
`, check: func(t *testing.T, c Config) {
			if c.Server.Name != "test server" || c.Server.Port != 8305 || c.Server.MaxClients != 16 ||
				c.Server.SnapshotRate != 50 || c.Game.Type != "ctf" || len(c.Votes) != 2 ||
				c.Map.Rotation[1] != "b" || c.Log.Format != "json" {
				t.Errorf("decoded %+v", c)
			}
		}},
		{name: "unknown top key", in: "\n\nfoo = 1\n", wantErr: `line 3: unknown key "foo"`},
		{name: "unknown nested key", in: "[server]\nname = \"x\"\nprot = 8303\n", wantErr: `line 3: unknown key "server.prot"`},
		{name: "unknown table", in: "[srv]\nport = 1\n", wantErr: `unknown key "srv`},
		{name: "bad type", in: "[server]\nport = \"x\"\n", wantErr: "port"},
		{name: "too many clients", in: "[server]\nmax_clients = 65\n", wantErr: "server.max_clients"},
		{name: "zero clients", in: "[server]\nmax_clients = 0\n", wantErr: "server.max_clients"},
		{name: "player slots", in: "[server]\nplayer_slots = 17\n", wantErr: "server.player_slots"},
		{name: "per ip", in: "[server]\nmax_clients_per_ip = 0\n", wantErr: "server.max_clients_per_ip"},
		{name: "port", in: "[server]\nport = 70000\n", wantErr: "server.port"},
		{name: "bind", in: "[server]\nbind = \"localhost\"\n", wantErr: "server.bind"},
		{name: "snap rate", in: "[server]\nsnapshot_rate = 30\n", wantErr: "server.snapshot_rate"},
		{name: "gametype", in: "[game]\ntype = \"race\"\n", wantErr: "game.type"},
		{name: "warmup", in: "[game]\nwarmup = -2\n", wantErr: "game.warmup"},
		{name: "inactive kick time", in: "[game]\ninactive_kick_time = -1\n", wantErr: "game.inactive_kick_time"},
		{name: "log level", in: "[log]\nlevel = \"loud\"\n", wantErr: "log.level"},
		{name: "log format", in: "[log]\nformat = \"xml\"\n", wantErr: "log.format"},
		{name: "rotation without dir", in: "[map]\nrotation = [\"a\"]\n", wantErr: "map.rotation"},
		{name: "rotation path", in: "[map]\ndir = \"m\"\nrotation = [\"../a\"]\n", wantErr: "map.rotation"},
		{name: "file and dir", in: "[map]\nfile = \"a.map\"\ndir = \"m\"\n", wantErr: "map.file"},
		{name: "vote empty", in: "[[vote]]\ndescription = \"\"\ncommand = \"x\"\n", wantErr: "vote[0].description"},
		{name: "vote dup", in: "[[vote]]\ndescription = \"a\"\ncommand = \"x\"\n[[vote]]\ndescription = \"a\"\ncommand = \"y\"\n", wantErr: "vote[1].description"},
		{name: "econ without password", in: "[econ]\nport = 8304\n", wantErr: "econ.password"},
		{name: "econ level", in: "[econ]\noutput_level = 3\n", wantErr: "econ.output_level"},
		{name: "econ bind", in: "[econ]\nbind = \"localhost\"\n", wantErr: "econ.bind"},
		{name: "register url", in: "[register]\nenabled = true\nurl = \"ftp://x\"\n", wantErr: "register.url"},
		{name: "metrics listen", in: "[metrics]\nlisten = \":9100\"\n", wantErr: "metrics.listen"},
		{name: "web listen is metrics listen", in: "[metrics]\nlisten = \"127.0.0.1:9100\"\n[web]\nlisten = \"127.0.0.1:9100\"\n", wantErr: "web.listen"},
		{name: "web and metrics listen apart", in: "[metrics]\nlisten = \"127.0.0.1:9100\"\n[web]\nlisten = \"127.0.0.1:9101\"\n",
			check: func(t *testing.T, c Config) {
				if c.Web.Listen != "127.0.0.1:9101" {
					t.Errorf("web.listen %q", c.Web.Listen)
				}
			}},
		{name: "ops sections", in: "[register]\nport = 8310\n[econ]\nport = 8304\npassword = \"e\"\n[metrics]\nlisten = \"127.0.0.1:9100\"\n[agones]\nenabled = true\n",
			check: func(t *testing.T, c Config) {
				if c.Register.Enabled || c.Register.Port != 8310 || c.Econ.Port != 8304 || c.Econ.Bind != "127.0.0.1" ||
					c.Econ.AuthTimeout != 30 || c.Metrics.Listen != "127.0.0.1:9100" || !c.Agones.Enabled {
					t.Errorf("decoded %+v", c)
				}
			}},
		{name: "long password", in: "[server]\npassword = \"" + strings.Repeat("x", 33) + "\"\n", wantErr: "server.password"},
		{name: "voting and rcon ban time", in: "[server]\nrcon_ban_time = 0\n[voting]\nkick = false\nkick_min = 4\nkick_ban_time = 1440\nspectate = false\nspectate_rejoin_delay = 1000\n",
			check: func(t *testing.T, c Config) {
				want := VotingConfig{Kick: false, KickMin: 4, KickBanTime: 1440, Spectate: false, SpectateRejoinDelay: 1000}
				if c.Voting != want || c.Server.RconBanTime != 0 {
					t.Errorf("decoded voting %+v, rcon_ban_time %d", c.Voting, c.Server.RconBanTime)
				}
			}},
		{name: "voting defaults", in: "[voting]\n", check: func(t *testing.T, c Config) {
			// the reference's defaults: sv_vote_kick 1, sv_vote_kick_min 0, sv_vote_kick_bantime 5,
			// sv_vote_spectate 1, sv_vote_spectate_rejoindelay 3, sv_rcon_bantime 5
			if want := (VotingConfig{Kick: true, KickMin: 0, KickBanTime: 5, Spectate: true, SpectateRejoinDelay: 3}); c.Voting != want || c.Server.RconBanTime != 5 {
				t.Errorf("defaults voting %+v, rcon_ban_time %d", c.Voting, c.Server.RconBanTime)
			}
		}},
		{name: "kick_min range", in: "[voting]\nkick_min = 65\n", wantErr: "invalid value for voting.kick_min: 65 is outside 0..64"},
		{name: "kick_min negative", in: "[voting]\nkick_min = -1\n", wantErr: "voting.kick_min"},
		{name: "kick_ban_time range", in: "[voting]\nkick_ban_time = 1441\n", wantErr: "invalid value for voting.kick_ban_time: 1441 is outside 0..1440 minutes"},
		{name: "rejoin delay range", in: "[voting]\nspectate_rejoin_delay = 1001\n", wantErr: "invalid value for voting.spectate_rejoin_delay: 1001 is outside 0..1000 minutes"},
		{name: "rcon_ban_time range", in: "[server]\nrcon_ban_time = -1\n", wantErr: "invalid value for server.rcon_ban_time: -1 is outside 0..1440 minutes"},
		{name: "checkpoint_interval range", in: "[record]\ncheckpoint_interval = -1\n", wantErr: "invalid value for record.checkpoint_interval: -1 is outside 0..3600"},
		{name: "checkpoint_interval range high", in: "[record]\ncheckpoint_interval = 3601\n", wantErr: "invalid value for record.checkpoint_interval: 3601 is outside 0..3600"},
		{name: "voting unknown key", in: "[voting]\nkick_bantime = 3\n", wantErr: `line 2: unknown key "voting.kick_bantime"`},
		{name: "voting type", in: "[voting]\nkick = 1\n", wantErr: "voting.kick"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestErrorKinds(t *testing.T) {
	_, err := Parse([]byte("bogus = 1"))
	if !errors.Is(err, ErrUnknownKey) {
		t.Errorf("unknown key error not ErrUnknownKey: %v", err)
	}
	_, err = Parse([]byte("[game]\ntype = \"x\""))
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid value error not ErrInvalid: %v", err)
	}
}

func TestSvNamesCoverEveryKey(t *testing.T) {
	have := map[string]bool{}
	for _, n := range SvNames {
		have[n.Key] = true
	}
	for _, k := range []string{"server.name", "server.port", "server.bind", "server.max_clients", "server.player_slots",
		"server.max_clients_per_ip", "server.password", "server.rcon_password", "server.snapshot_rate",
		"map.file", "map.dir", "map.rotation", "game.type", "game.score_limit", "game.time_limit", "game.warmup", "game.inactive_kick_time",
		"log.level", "log.format", "server.rcon_ban_time", "voting.kick", "voting.kick_min", "voting.kick_ban_time",
		"voting.spectate", "voting.spectate_rejoin_delay"} {
		if !have[k] {
			t.Errorf("SvNames misses %s", k)
		}
	}
}

// TestSvNamesVoteSettings: the vote and rcon settings map to the
// reference's variable names.
func TestSvNamesVoteSettings(t *testing.T) {
	want := map[string]string{
		"server.rcon_max_tries": "sv_rcon_max_tries", "server.rcon_ban_time": "sv_rcon_bantime",
		"voting.kick": "sv_vote_kick", "voting.kick_min": "sv_vote_kick_min", "voting.kick_ban_time": "sv_vote_kick_bantime",
		"voting.spectate": "sv_vote_spectate", "voting.spectate_rejoin_delay": "sv_vote_spectate_rejoindelay",
	}
	for _, n := range SvNames {
		if sv, ok := want[n.Key]; ok {
			if n.Sv != sv || n.Doc == "" {
				t.Errorf("%s: %q %q, want %q", n.Key, n.Sv, n.Doc, sv)
			}
			delete(want, n.Key)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing rows: %v", want)
	}
}

// TestWebRecordingsAndProxies: web.recordings defaults to "admin" and
// takes only its three values; web.trusted_proxies takes networks and lone
// addresses, and refuses anything else; web.admin_hosts takes host names
// (no port, scheme or wildcard).
func TestWebRecordingsAndProxies(t *testing.T) {
	c, err := Parse([]byte("[web]\nlisten = \"127.0.0.1:8080\"\n"))
	if err != nil || c.Web.Recordings != RecordingsAdmin || len(c.Web.TrustedProxies) != 0 {
		t.Fatalf("default: %+v, %v", c.Web, err)
	}
	for _, v := range []string{"off", "admin", "public"} {
		if c, err := Parse([]byte("[web]\nrecordings = \"" + v + "\"\n")); err != nil || c.Web.Recordings != v {
			t.Errorf("recordings = %q: %+v, %v", v, c.Web, err)
		}
	}
	for _, v := range []string{"", "Public", "on", "true"} {
		if _, err := Parse([]byte("[web]\nrecordings = \"" + v + "\"\n")); !errors.Is(err, ErrInvalid) {
			t.Errorf("recordings = %q accepted: %v", v, err)
		}
	}
	c, err = Parse([]byte("[web]\ntrusted_proxies = [\"127.0.0.1\", \"10.1.2.3/8\", \"::1\", \"fd00::/8\", \"::ffff:192.168.0.0/112\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := c.Web.TrustedPrefixes()
	want := "[127.0.0.1/32 10.0.0.0/8 ::1/128 fd00::/8 192.168.0.0/16]"
	if err != nil || fmt.Sprint(ps) != want {
		t.Errorf("prefixes %v, %v; want %s", ps, err, want)
	}
	for _, v := range []string{"localhost", "10.0.0.0/33", "fe80::1%eth0", "1.2.3.4:80", ""} {
		if _, err := Parse([]byte("[web]\ntrusted_proxies = [\"" + v + "\"]\n")); !errors.Is(err, ErrInvalid) {
			t.Errorf("trusted_proxies %q accepted: %v", v, err)
		}
	}
	a := c.Web
	b := a
	b.TrustedProxies = append([]string(nil), a.TrustedProxies...)
	if !a.Equal(b) {
		t.Error("equal sections differ")
	}
	b.TrustedProxies[0] = "127.0.0.2"
	if a.Equal(b) {
		t.Error("different proxies compare equal")
	}
	c, err = Parse([]byte("[web]\nadmin_hosts = [\"game.example.org\", \"gamebox\", \"box.lan.\"]\n"))
	if err != nil || len(c.Web.AdminHosts) != 3 {
		t.Fatalf("admin_hosts: %+v, %v", c.Web.AdminHosts, err)
	}
	for _, v := range []string{"", "game.example.org:443", "http://game.example.org", "a..b", "*.example.org", "a b", strings.Repeat("a", 64) + ".org"} {
		if _, err := Parse([]byte("[web]\nadmin_hosts = [\"" + v + "\"]\n")); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "web.admin_hosts") {
			t.Errorf("admin_hosts %q accepted: %v", v, err)
		}
	}
	b = c.Web
	b.AdminHosts = []string{"other.example.org"}
	if c.Web.Equal(b) {
		t.Error("different admin hosts compare equal")
	}
}

// TestListenHints: a listen address or bind address twserver cannot use
// says what to write instead (before: only `":9100" is not address:port`,
// though ":9100" is how many servers write every address, and
// `"localhost" is not an IP address`).
func TestListenHints(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"[metrics]\nlisten = \":9100\"", `invalid value for metrics.listen: ":9100" is not IP:port (twserver resolves no host names; write "127.0.0.1:PORT"`},
		{"[metrics]\nlisten = \"localhost:9100\"", `"0.0.0.0:PORT" for every IPv4 address, "[::]:PORT" for every address)`},
		{"[web]\nlisten = \"0.0.0.0\"", `invalid value for web.listen: "0.0.0.0" is not IP:port`},
		{"[server]\nbind = \"localhost\"", `invalid value for server.bind: "localhost" is not an IP address (twserver resolves no host names: 127.0.0.1 for this host alone, "" for every address)`},
		{"[econ]\nbind = \"localhost\"", `invalid value for econ.bind: "localhost" is not an IP address (twserver resolves no host names`},
	} {
		_, err := Parse([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want %q", tt.in, err, tt.want)
		}
	}
}

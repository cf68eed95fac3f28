package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"twserver/internal/testenv"
)

// loadText executes text as the file name over the defaults.
func loadText(t *testing.T, name, text string) (Config, []Warning, error) {
	t.Helper()
	l := NewLoader()
	l.MapDirs = []string{}
	l.ReadFile = func(p string) ([]byte, error) {
		if p == name {
			return []byte(text), nil
		}
		return nil, os.ErrNotExist
	}
	if err := l.ExecFile(name); err != nil {
		return Config{}, l.Warnings, err
	}
	c, err := l.Finish()
	return c, l.Warnings, err
}

func TestCfgSettings(t *testing.T) {
	c, warns, err := loadText(t, "s.cfg", `# a server
sv_name "My \"best\" server" # comment
SV_PORT 8304; sv_max_clients 12
sv_player_slots 6 ; sv_max_clients_per_ip 2
password "secret pw"
sv_rcon_password admin
sv_rcon_max_tries 5
sv_high_bandwidth 1
sv_map_download_speed 16
sv_motd   Welcome - and have fun!   
sv_gametype ctf
sv_scorelimit 500
sv_timelimit 10
sv_warmup 5
sv_inactivekick_time 0
sv_inactivekick 3
sv_inactivekick_spec 1
sv_spamprotection 0
sv_strict_spectate_mode 1
bindaddr localhost
console_output_level 2
sv_register 1
sv_external_port 18303
sv_auto_demo_record 1
add_vote "Restart round" restart
add_vote Map2 "change_map dm2"
add_vote "  Pause  " "pause 10"
`)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	want := Default()
	s := &want.Server
	s.Name, s.Port, s.MaxClients, s.PlayerSlots, s.MaxClientsPerIP = `My "best" server`, 8304, 12, 6, 2
	s.Password, s.RconPassword, s.RconMaxTries, s.SnapshotRate, s.MapDownloadSpeed = "secret pw", "admin", 5, 50, 16
	s.MOTD, s.Bind = "Welcome - and have fun!", "127.0.0.1"
	g := &want.Game
	g.Type, g.ScoreLimit, g.TimeLimit, g.Warmup, g.InactiveKickTime = "ctf", 500, 10, 5, 0
	g.InactiveKick, g.InactiveKickSpec, g.SpamProtection, g.StrictSpectate = 3, true, false, true
	want.Log.Level = "debug"
	want.Register.Enabled, want.Register.Port = true, 18303
	want.Record.Demo = true
	want.Votes = []VoteOption{{"Restart round", "restart"}, {"Map2", "change_map dm2"}, {"Pause  ", "pause 10"}}
	diffConfigs(t, c, want)
}

// diffConfigs reports every key whose value differs.
func diffConfigs(t *testing.T, got, want Config) {
	t.Helper()
	for _, k := range Keys() {
		g, _ := fieldByKey(&got, k)
		w, _ := fieldByKey(&want, k)
		if !reflect.DeepEqual(g.Interface(), w.Interface()) {
			t.Errorf("%s = %#v, want %#v", k, g.Interface(), w.Interface())
		}
	}
	if !reflect.DeepEqual(got.Votes, want.Votes) {
		t.Errorf("votes = %q, want %q", got.Votes, want.Votes)
	}
}

func TestCfgErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"not a number", "\nsv_port abc\n", `e.cfg:2: sv_port abc: "abc" is not a number`},
		{"unterminated", `sv_name "x`, `e.cfg:1: sv_name "x: unterminated`},
		{"bad bind", "bindaddr example.org", `e.cfg:1: bindaddr example.org: "example.org" is not an IP address`},
		{"invalid for twserver", "sv_gametype race", `e.cfg:1: sv_gametype race: invalid value for game.type: "race"`},
		{"too long for twserver", "sv_name " + strings.Repeat("n", 100), "e.cfg:1: sv_name nnn"},
		{"missing exec", "\n\nexec nothere.cfg", "e.cfg:3: exec nothere.cfg: "},
		{"add_vote without command", `add_vote "x"`, `e.cfg:1: add_vote "x": missing argument`},
		{"map not found", "sv_map nosuchmap", "e.cfg:1: sv_map nosuchmap: map nosuchmap.map is in none of"},
		{"rotation not found", "sv_maprotation a b", "e.cfg:1: sv_maprotation a b: map a.map is in none of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadText(t, "e.cfg", tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
	_, _, err := loadText(t, "e.cfg", "sv_gametype race")
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid value error not ErrInvalid: %v", err)
	}
}

func TestCfgWarnings(t *testing.T) {
	_, warns, err := loadText(t, "w.cfg", `sv_max_clients 100
sv_vote_kick 1
sv_vote_kick_min 4
sv_vote_kick_min 5
sv_spectator_slots 2
sv_rcon_ban_time 60
logfile /tmp/x.log
sv_port 8303 8304
sv_name
kick 0
tune gravity 0.6
ec_port 0
sv_name `+strings.Repeat("x", 130)+`
; sv_port 1
add_vote a restart
add_vote A "restart 5"
sv_scorelimt 10
sv_register_port 28303
`)
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	// sv_name's second value is cut to 127 bytes and then refused (64).
	if err == nil || !strings.Contains(err.Error(), "w.cfg:13: sv_name xxx") {
		t.Errorf("err = %v", err)
	}
	want := []string{
		"w.cfg:1: sv_max_clients 100: 100 is outside 1..64: using 64, as the reference does",
		"w.cfg:5: sv_spectator_slots: no such command in teeworlds-server 0.7.5 (a 0.6 setting: in 0.7 the slots beyond sv_player_slots (up to sv_max_clients) are the spectators'): ignored, as the reference does",
		"w.cfg:6: sv_rcon_ban_time: no such command in teeworlds-server 0.7.5 (did you mean sv_rcon_bantime?): ignored, as the reference does",
		"w.cfg:7: logfile /tmp/x.log: not supported by twserver, ignored: twserver logs to standard error (journald, docker logs); redirect it to keep a file",
		`w.cfg:8: sv_port 8303 8304: "8304" after the value ignored, as the reference does`,
		"w.cfg:9: sv_name: no value: nothing set (the reference prints the current value)",
		"w.cfg:10: kick 0: a console command for a running game, not a setting: ignored in a configuration (type it on the console or over rcon)",
		"w.cfg:11: tune gravity 0.6: tuning is not configurable in twserver (the world plays the 0.7.5 default tuning): ignored",
		"w.cfg:13: sv_name " + strings.Repeat("x", 130) + ": longer than 127 bytes: cut, as the reference does",
		"w.cfg:14: sv_port 1: follows an empty command: ignored, as the reference does",
		`w.cfg:16: add_vote A "restart 5": the option already exists: skipped, as the reference does`,
		"w.cfg:17: sv_scorelimt: no such command in teeworlds-server 0.7.5 (did you mean sv_scorelimit?): ignored, as the reference does",
		"w.cfg:18: sv_register_port: no such command in teeworlds-server 0.7.5 (did you mean sv_external_port, the port announced to the masters?): ignored, as the reference does",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCfgExec(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("votes.cfg", "add_vote \"Restart\" restart\nexec main.cfg\n")
	main := write("main.cfg", "sv_name first\nexec votes.cfg\nsv_port 8310\nexec "+filepath.Join(dir, "last.cfg")+"\n")
	write("last.cfg", "sv_name last\n")
	// votes.cfg is found next to main.cfg (the working directory has none);
	// its exec of main.cfg is a loop, skipped with a warning.
	c, warns, err := LoadCfg(main)
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.Name != "last" || c.Server.Port != 8310 || len(c.Votes) != 1 {
		t.Errorf("name %q port %d votes %v", c.Server.Name, c.Server.Port, c.Votes)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].String(), "votes.cfg:2: exec main.cfg: the file is already being executed") {
		t.Errorf("warnings %v", warns)
	}

	// Depth: a chain of 20 files, each executing the next.
	for i := 0; i < 20; i++ {
		write(fmt.Sprintf("d%d.cfg", i), fmt.Sprintf("exec d%d.cfg\n", i+1))
	}
	write("d20.cfg", "sv_port 1\n")
	_, _, err = LoadCfg(filepath.Join(dir, "d0.cfg"))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("exec nested deeper than %d files", MaxExecDepth)) {
		t.Errorf("deep chain: %v", err)
	}

	// Size: files executing each other many times stop at MaxCfgTotalSize.
	big := strings.Repeat("# padding padding padding padding padding padding padding padding\n", 12000)
	write("big.cfg", big)
	write("many.cfg", big+strings.Repeat("exec big.cfg\n", 100))
	_, _, err = LoadCfg(filepath.Join(dir, "many.cfg"))
	if err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Errorf("total size: %v", err)
	}
	write("huge.cfg", strings.Repeat("#", MaxCfgFileSize+1))
	if _, _, err = LoadCfg(filepath.Join(dir, "huge.cfg")); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge file: %v", err)
	}
}

func TestCfgMapNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"alpha", "beta", "gamma"} {
		if err := os.WriteFile(filepath.Join(dir, n+".map"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func(cmds ...string) (Config, []Warning, error) {
		l := NewLoader()
		l.MapDirs = []string{filepath.Join(dir, "none"), dir}
		for _, c := range cmds {
			if err := l.ExecCommand(c); err != nil {
				return Config{}, nil, err
			}
		}
		c, err := l.Finish()
		return c, l.Warnings, err
	}
	c, _, err := load("sv_map beta")
	if err != nil || c.Map.File != filepath.Join(dir, "beta.map") || c.Map.Dir != "" {
		t.Errorf("sv_map beta: %+v %v", c.Map, err)
	}
	c, _, err = load("sv_maprotation alpha beta gamma", "sv_map beta")
	if err != nil || c.Map.Dir != dir || !slices.Equal(c.Map.Rotation, []string{"beta", "gamma", "alpha"}) {
		t.Errorf("rotation from beta: %+v %v", c.Map, err)
	}
	c, w, err := load("sv_map gamma; sv_maprotation alpha beta")
	if err != nil || !slices.Equal(c.Map.Rotation, []string{"alpha", "beta"}) || len(w) != 1 || !strings.Contains(w[0].Msg, "starts with the rotation's first map, alpha") {
		t.Errorf("map outside rotation: %+v %v %v", c.Map, w, err)
	}
	c, _, err = load("sv_maprotation gamma alpha")
	if err != nil || c.Map.Dir != dir || c.Map.File != "" {
		t.Errorf("rotation alone: %+v %v", c.Map, err)
	}
	c, _, err = load("sv_map " + filepath.Join(dir, "alpha.map"))
	if err != nil || c.Map.File != filepath.Join(dir, "alpha.map") {
		t.Errorf("sv_map path: %+v %v", c.Map, err)
	}
	c, _, err = load("sv_map beta", "sv_map "+DefaultMapName)
	if err != nil || c.Map.File != "" || c.Map.Dir != "" {
		t.Errorf("sv_map of the embedded map: %+v %v", c.Map, err)
	}
}

func TestEnv(t *testing.T) {
	env := map[string]string{
		"SV_NAME":                    "from env",
		"SV_PORT":                    "8400",
		"PASSWORD":                   "pw",
		"SV_HIGH_BANDWIDTH":          "1",
		"SV_MAX_CLIENTS":             "99",
		"SV_VOTE_KICK_MIN":           "3",
		"SV_RCON_MOD_PASSWORD":       "mod",
		"SV_VOTE_KICK":               "1",
		"TWSERVER_METRICS_LISTEN":    "127.0.0.1:9100",
		"TWSERVER_LOG_FORMAT":        "json",
		"TWSERVER_RECORD_DEMO":       "true",
		"TWSERVER_REGISTER_FAMILIES": "ipv4, ipv6",
		"DEBUG":                      "1", // a common variable: never read
	}
	l := NewLoader()
	if err := l.ExecCommand(`sv_name "from file"; sv_port 8303`); err != nil {
		t.Fatal(err)
	}
	if err := l.ApplyEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	if err := l.ExecCommand("sv_port 8500"); err != nil { // the command line comes after the environment
		t.Fatal(err)
	}
	c, err := l.Finish()
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Server.Name, want.Server.Port, want.Server.Password, want.Server.SnapshotRate, want.Server.MaxClients = "from env", 8500, "pw", 50, 64
	want.Metrics.Listen, want.Log.Format, want.Record.Demo = "127.0.0.1:9100", "json", true
	want.Register.Families = []string{"ipv4", "ipv6"}
	want.Voting.KickMin = 3
	diffConfigs(t, c, want)
	got := warningStrings(l.Warnings)
	wantW := []string{
		"environment variable SV_MAX_CLIENTS: 99: 99 is outside 1..64: using 64, as the reference does",
		"environment variable SV_RCON_MOD_PASSWORD: (set): not supported by twserver, ignored: twserver's remote console has one access level (sv_rcon_password)",
	}
	if !slices.Equal(got, wantW) {
		t.Errorf("warnings %q, want %q", got, wantW)
	}

	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"SV_PORT": "eighty"}, `environment variable SV_PORT: "eighty" is not a number`},
		{map[string]string{"TWSERVER_RECORD_DEMO": "yes"}, `environment variable TWSERVER_RECORD_DEMO (record.demo): "yes" is not true or false`},
		{map[string]string{"SV_PORT": "1", "TWSERVER_SERVER_PORT": "2"}, "environment variables SV_PORT and TWSERVER_SERVER_PORT both set server.port"},
		{map[string]string{"SV_GAMETYPE": "race"}, `environment variable SV_GAMETYPE: invalid value for game.type`},
	} {
		l := NewLoader()
		err := l.ApplyEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
		if err == nil {
			_, err = l.Finish()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("env %v: err %v, want %q", tt.env, err, tt.want)
		}
	}
}

func TestFlagOrigin(t *testing.T) {
	l := NewLoader()
	if err := l.ExecCommand("sv_max_clients 12"); err != nil {
		t.Fatal(err)
	}
	l.Config().Server.MaxClients = 0
	l.Set("server.max_clients", "flag -max-clients")
	_, err := l.Finish()
	if err == nil || !strings.HasPrefix(err.Error(), "flag -max-clients: invalid value for server.max_clients") {
		t.Errorf("err = %v", err)
	}
}

// TestDebianServerCfg loads the server.cfg Debian's teeworlds-server 0.7.5-2
// installs (/etc/teeworlds/server.cfg; a copy in testdata for machines
// without the package) and compares the effective configuration, field by
// field, with what the file says.
func TestDebianServerCfg(t *testing.T) {
	const path = "/etc/teeworlds/server.cfg"
	data, err := os.ReadFile("testdata/debian-server.cfg")
	if err != nil {
		t.Fatal(err)
	}
	if inst, err := os.ReadFile(path); testenv.Partly(t, path+" (Debian package teeworlds-server; the copy in testdata is read instead)", err) {
		if string(inst) != string(data) {
			t.Fatalf("%s differs from testdata/debian-server.cfg: the package changed it; update the copy and this test", path)
		}
	}
	l := NewLoader()
	l.ReadFile = func(p string) ([]byte, error) {
		if p == path {
			return data, nil
		}
		return nil, os.ErrNotExist
	}
	if err := l.ExecFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := l.Finish()
	if err != nil {
		t.Fatal(err)
	}

	// What each active line of the file sets, and what twserver warns about.
	want := Default()
	sets := map[string]func(){
		"sv_name":               func() { want.Server.Name = "Teeworlds powered by Debian" },
		"sv_external_port":      func() { want.Register.Port = 0 },
		"sv_max_clients":        func() { want.Server.MaxClients = 16 },
		"sv_max_clients_per_ip": func() { want.Server.MaxClientsPerIP = 4 },
		"sv_high_bandwidth":     func() { want.Server.SnapshotRate = 25 },
		"sv_register":           func() { want.Register.Enabled = true },
		"console_output_level":  func() { want.Log.Level = "info" },
		"sv_rcon_max_tries":     func() { want.Server.RconMaxTries = 3 },
		"sv_warmup":             func() { want.Game.Warmup = 10 },
		"sv_motd":               func() { want.Server.MOTD = "Welcome - and have fun!" },
		"sv_spamprotection":     func() { want.Game.SpamProtection = true },
		"sv_inactivekick_time":  func() { want.Game.InactiveKickTime = 3 },
		"sv_inactivekick":       func() { want.Game.InactiveKick = 1 }, // 0 is clamped to 1, as the reference does
		// sv_vote_kick 1 and sv_teambalance_time 1 are what twserver plays: no warning.
		"sv_vote_kick":         func() {},
		"sv_vote_kick_bantime": func() { want.Voting.KickBanTime = 60 },
		"sv_vote_kick_min":     func() { want.Voting.KickMin = 4 },
		"sv_teambalance_time":  func() {},
	}
	warned := map[string]string{
		"sv_rcon_ban_time":   "no such command in teeworlds-server 0.7.5",
		"sv_spectator_slots": "no such command in teeworlds-server 0.7.5",
		"sv_inactivekick":    "0 is outside 1..3: using 1",
		"exec":               "already being executed",
	}
	for i, line := range splitLines(data) {
		cmds, _ := splitCommands(line)
		for _, c := range cmds {
			name, _ := splitName(c)
			f, ok := sets[name]
			if _, w := warned[name]; !ok && !w {
				t.Errorf("line %d: %q: the test does not know this setting", i+1, c)
			}
			if ok {
				f()
			}
		}
	}
	diffConfigs(t, got, want)
	if got.Register.Enabled != true {
		t.Errorf("sv_register 1 must enable registration")
	}
	if len(l.Warnings) != len(warned) {
		t.Errorf("%d warnings, want %d: %v", len(l.Warnings), len(warned), l.Warnings)
	}
	for _, w := range l.Warnings {
		name, _ := splitName(w.Command)
		if want, ok := warned[name]; !ok || !strings.Contains(w.Msg, want) || !strings.HasPrefix(w.Where, path+":") {
			t.Errorf("unexpected warning %s", w)
		}
	}
}

// TestConverterMinutes: ec_bantime counts minutes in the reference and
// econ.ban_time seconds; the converter applies once a row maps it.
func TestConverterMinutes(t *testing.T) {
	saved := SvNames
	t.Cleanup(func() { SvNames = saved })
	SvNames = append(slices.Clone(saved), SvName{"econ.ban_time", "ec_bantime", "ban after 3 wrong econ passwords"})
	c, warns, err := loadText(t, "e.cfg", "ec_bantime 15")
	if err != nil || c.Econ.BanTime != 900 || len(warns) != 0 {
		t.Errorf("ec_bantime 15: ban_time %d, %v, %v", c.Econ.BanTime, warns, err)
	}
}

// TestInvalidSaysWhere: a refused value names where it was set: the TOML
// file and its line (before, a TOML file's invalid values named no line
// and its [[vote]] entries not even the file), and for a value refused
// because of another key (econ.password missing while econ.port is set)
// where that key was set, in a TOML file, a .cfg file or the environment.
func TestInvalidSaysWhere(t *testing.T) {
	for _, tt := range []struct {
		name, toml, cfg string
		env             map[string]string
		want            string
	}{
		{"toml value", "[server]\nname = \"x\"\nport = 70000\n", "", nil, "s.toml: line 3: invalid value for server.port: 70000"},
		{"toml dotted key", "server.port = -1\n", "", nil, "s.toml: line 1: invalid value for server.port"},
		{"toml vote", "[[vote]]\ndescription = \"a\"\ncommand = \"restart\"\n\n[[vote]]\ndescription = \"\"\ncommand = \"restart\"\n", "", nil,
			"s.toml: line 5: invalid value for vote[1].description"},
		{"toml cause", "[log]\nlevel = \"info\"\n\n[econ]\nport = 8304\n", "", nil, "s.toml: line 5: invalid value for econ.password: must be set"},
		{"toml both keys", "[metrics]\nlisten = \"127.0.0.1:9100\"\n[web]\nlisten = \"127.0.0.1:9100\"\n", "", nil, "s.toml: line 4: invalid value for web.listen"},
		{"toml recording", "[record]\ndir = \"\"\ndemo = true\n", "", nil, "s.toml: line 2: invalid value for record.dir"},
		{"toml default", "[server]\nname = \"x\"\n", "", map[string]string{"EC_PORT": "8304"}, "environment variable EC_PORT: invalid value for econ.password"},
		{"cfg cause", "", "sv_name x\nec_port 8304\n", nil, "e.cfg:2: ec_port 8304: invalid value for econ.password"},
		{"env cause", "", "", map[string]string{"TWSERVER_RECORD_TEEHISTORIAN": "true", "TWSERVER_RECORD_DIR": ""},
			"environment variable TWSERVER_RECORD_DIR: invalid value for record.dir"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			l := NewLoader()
			l.MapDirs = []string{}
			var err error
			switch {
			case tt.toml != "":
				p := filepath.Join(dir, "s.toml")
				os.WriteFile(p, []byte(tt.toml), 0o644)
				err = l.LoadTOML(p)
			case tt.cfg != "":
				l.ReadFile = func(string) ([]byte, error) { return []byte(tt.cfg), nil }
				err = l.ExecFile("e.cfg")
			}
			if err == nil {
				err = l.ApplyEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			}
			if err == nil {
				_, err = l.Finish()
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("err %q, want it to start with %q", got, tt.want)
			}
		})
	}
}

// TestSecretsNotShown: a password in a .cfg file, on the command line or
// in the environment never appears in a warning or an error, which go to
// the log (journald, docker logs): the value shows as "(set)". Before, an
// unsupported sv_rcon_mod_password, text after a password or a password
// cut to length put the password in the log line.
func TestSecretsNotShown(t *testing.T) {
	long := strings.Repeat("L", 40)
	text := "sv_rcon_mod_password hunter2\nsv_rcon_password \"rconpw\" rconextra\nec_password " + long + "\n"
	env := map[string]string{"SV_RCON_MOD_PASSWORD": "envmodpw", "PASSWORD": strings.Repeat("P", 40)}
	l := NewLoader()
	l.ReadFile = func(string) ([]byte, error) { return []byte(text), nil }
	if err := l.ExecFile("s.cfg"); err != nil {
		t.Fatal(err)
	}
	l.warned = map[string]bool{} // the environment's warning too
	if err := l.ApplyEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, w := range l.Warnings {
		shown = append(shown, w.String())
	}
	for _, line := range []string{`password "opensesame`, "sv_rcon_password a; sv_port x"} {
		if err := NewLoader().ExecCommand(line); err == nil {
			t.Errorf("%q: no error", line)
		} else {
			shown = append(shown, err.Error())
		}
	}
	all := strings.Join(shown, "\n")
	for _, secret := range []string{"hunter2", "rconpw", "rconextra", "LLLL", "envmodpw", "PPPP", "opensesame"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q shown:\n%s", secret, all)
		}
	}
	if n := strings.Count(all, "(set)"); n < 5 {
		t.Errorf("%d values shown as (set), want at least 5:\n%s", n, all)
	}
}

// TestTOMLFileStartsRotation: a TOML map.file with a rotation it is not in
// warns naming the file, the line and map.file (before: an empty where
// and the command "sv_map ...", which the operator never wrote).
func TestTOMLFileStartsRotation(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.toml")
	os.WriteFile(p, []byte("[map]\nfile = \"maps/b.map\"\nrotation = [\"a\", \"c\"]\n"), 0o644)
	l := NewLoader()
	l.MapDirs = []string{}
	if err := l.LoadTOML(p); err != nil {
		t.Fatal(err)
	}
	c, err := l.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if c.Map.Dir != "maps" || c.Map.File != "" {
		t.Errorf("map %+v, want the rotation in maps", c.Map)
	}
	got := strings.Join(warningStrings(l.Warnings), "\n")
	want := p + ": line 2: map.file maps/b.map: not in the rotation (sv_maprotation, map.rotation): twserver starts with the rotation's first map, a"
	if got != want {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// TestBOM: a file that starts with a UTF-8 byte-order mark (as Windows
// Notepad saves it) is read as without: before, a .cfg file's first
// setting was ignored as the unknown command "\ufeffsv_port", and a TOML
// file's unknown key had "line 0".
func TestBOM(t *testing.T) {
	c, warns, err := loadText(t, "bom.cfg", "\xef\xbb\xbfsv_port 8400\r\nsv_name bom\r\n")
	if err != nil || c.Server.Port != 8400 || c.Server.Name != "bom" || len(warns) != 0 {
		t.Errorf("port %d name %q, warnings %v, err %v; want 8400, bom, none", c.Server.Port, c.Server.Name, warningStrings(warns), err)
	}
	_, err = Parse([]byte("\xef\xbb\xbf[server]\r\nport = 1\r\nprot = 1\r\n"))
	if want := `line 3: unknown key "server.prot"`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err %v, want %q", err, want)
	}
}

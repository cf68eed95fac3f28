package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Bounds of the reference configuration syntax.
const (
	// MaxExecDepth bounds the nesting of exec (a file executing a file ...).
	MaxExecDepth = 16
	// MaxCfgFileSize is the largest configuration file read, in bytes.
	MaxCfgFileSize = 1 << 20
	// MaxCfgTotalSize bounds the bytes read through every -f and exec of one
	// game, so that files executing each other many times end.
	MaxCfgTotalSize = 16 << 20
	// MaxWarnings bounds the warnings kept for one game.
	MaxWarnings = 256
)

// DefaultMapName is the name of the embedded default map (twmap.Default).
const DefaultMapName = "twsrv_arena"

// Warning is something a configuration sets that twserver ignores or adjusts;
// cmd/twserver logs every one at start.
type Warning struct {
	// Where is "FILE:LINE", "command line" or "environment variable NAME".
	Where string
	// Command is the command or value concerned.
	Command string
	// Msg says what twserver did.
	Msg string
}

func (w Warning) String() string {
	if w.Command == "" {
		return w.Where + ": " + w.Msg
	}
	return w.Where + ": " + w.Command + ": " + w.Msg
}

// Loader builds one game's configuration from its sources, in the order of
// precedence: the defaults, then files (LoadTOML, or ExecFile for the
// reference's syntax), then the environment (ApplyEnv), then the command
// line (ExecCommand for the reference's console commands, then Set for the
// flags); Finish resolves map names and validates, naming where an invalid
// value came from.
type Loader struct {
	cfg Config
	// Warnings are collected as the sources are applied (at most MaxWarnings).
	Warnings []Warning
	// ReadFile reads a configuration file; nil = the file system, bounded by
	// MaxCfgFileSize.
	ReadFile func(path string) ([]byte, error)
	// MapDirs are the directories a map name (sv_map NAME) is looked up in
	// after map.dir; nil = DefaultMapDirs().
	MapDirs []string

	origin  map[string]string // dotted key (or vote[i]) -> where it was last set
	file    string            // the TOML file read, where a key it leaves at its default comes from
	warned  map[string]bool   // one warning per setting
	stack   []string          // files being executed, outermost first
	total   int               // bytes read by ExecFile
	mapName string            // the last sv_map, resolved by Finish
	mapFrom string            // where it was set
}

// NewLoader starts from Default.
func NewLoader() *Loader {
	return &Loader{cfg: Default(), origin: map[string]string{}, warned: map[string]bool{}}
}

// Config returns the configuration as applied so far, for the flags to
// change (use Set to name them in errors).
func (l *Loader) Config() *Config { return &l.cfg }

// Set records that the flag or source where set the key (for error messages).
func (l *Loader) Set(key, where string) { l.origin[key] = where }

// SetMapFile sets map.file from a flag (-map): it replaces map.dir, the
// rotation and any sv_map name.
func (l *Loader) SetMapFile(path, where string) {
	l.cfg.Map.File, l.cfg.Map.Dir, l.cfg.Map.Rotation = path, "", nil
	l.mapName = ""
	l.Set("map.file", where)
}

func (l *Loader) warn(key string, w Warning) {
	if key != "" {
		if l.warned[key] {
			return
		}
		l.warned[key] = true
	}
	if len(l.Warnings) < MaxWarnings {
		l.Warnings = append(l.Warnings, w)
	}
}

// LoadTOML reads a TOML file over the defaults (the file syntax of
// -config); it must come before any other source.
func (l *Loader) LoadTOML(path string) error {
	data, err := readBounded(path)
	if err != nil {
		return err
	}
	c, err := decodeTOML(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	l.cfg = c
	l.file = path
	for _, k := range Keys() {
		if n := keyLine(data, k); n > 0 {
			l.origin[k] = fmt.Sprintf("%s: line %d", path, n)
		}
	}
	for i := range c.Votes {
		if n := voteLine(data, i); n > 0 {
			l.origin["vote["+strconv.Itoa(i)+"]"] = fmt.Sprintf("%s: line %d", path, n)
		}
	}
	return nil
}

// utf8BOM is the byte-order mark some editors (Windows Notepad) put at the
// start of a text file: no part of its first line, which the reference
// would read as an unknown command, dropping that line's setting.
var utf8BOM = []byte("\xef\xbb\xbf")

// readBounded reads a file of at most MaxCfgFileSize bytes.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxCfgFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxCfgFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, MaxCfgFileSize)
	}
	return data, nil
}

// ExecFile executes a file of console commands in the reference's syntax
// (teeworlds-server -f FILE).
func (l *Loader) ExecFile(path string) error { return l.execFile(path, "") }

// execFile executes path; from is the including file ("" at the top). A
// relative path is taken from the working directory (the reference's
// current-directory storage path), else from the including file's directory.
func (l *Loader) execFile(path, from string) error {
	if from != "" && !filepath.IsAbs(path) {
		if _, err := os.Stat(path); err != nil {
			if alt := filepath.Join(filepath.Dir(from), path); alt != path {
				if _, err := os.Stat(alt); err == nil {
					path = alt
				}
			}
		}
	}
	id := path
	if abs, err := filepath.Abs(path); err == nil {
		id = abs
	}
	if slices.Contains(l.stack, id) {
		return errExecLoop
	}
	if len(l.stack) >= MaxExecDepth {
		return fmt.Errorf("exec nested deeper than %d files", MaxExecDepth)
	}
	read := l.ReadFile
	if read == nil {
		read = readBounded
	}
	data, err := read(path)
	if err != nil {
		return err
	}
	if len(data) > MaxCfgFileSize {
		return fmt.Errorf("%s: larger than %d bytes", path, MaxCfgFileSize)
	}
	if l.total += len(data); l.total > MaxCfgTotalSize {
		return fmt.Errorf("%s: the configuration files read exceed %d bytes in all (files executing each other?)", path, MaxCfgTotalSize)
	}
	l.stack = append(l.stack, id)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	for i, line := range splitLines(bytes.TrimPrefix(data, utf8BOM)) {
		if err := l.execLine(fmt.Sprintf("%s:%d", path, i+1), line, path); err != nil {
			return err
		}
	}
	return nil
}

// errExecLoop is returned by execFile for a file already being executed;
// the reference skips it silently, twserver with a warning.
var errExecLoop = errors.New("already being executed")

// ExecCommand executes one command line argument in the reference's syntax
// (teeworlds-server "sv_port 8304" "sv_map dm2"): one or more commands
// separated by ';'.
func (l *Loader) ExecCommand(line string) error { return l.execLine(commandLine, line, "") }

// commandLine is the Where of the commands given as arguments.
const commandLine = "command line"

// execLine executes the commands of one line; file is the file it is
// from ("" for the command line).
func (l *Loader) execLine(where, line, file string) error {
	cmds, dropped := splitCommands(line)
	for _, c := range cmds {
		if err := l.execCommand(where, c, file); err != nil {
			return err
		}
	}
	if dropped != "" {
		l.warn("", Warning{where, dropped, "follows an empty command: ignored, as the reference does"})
	}
	return nil
}

// Secret reports whether a setting's value is a secret that no log, error
// or recording shows: a password (sv_rcon_password, password,
// ec_password, ...; any case).
func Secret(name string) bool { return strings.Contains(strings.ToLower(name), "password") }

// shownCommand is a command as a warning or an error shows it: trimmed,
// a secret setting's value replaced by "(set)".
func shownCommand(cmd string) string {
	name, args := splitName(cmd)
	if Secret(name) && strings.TrimSpace(args) != "" {
		return name + " (set)"
	}
	return strings.TrimSpace(cmd)
}

// shownValue is a setting's value as a warning shows it: "(set)" for a
// secret.
func shownValue(name, v string) string {
	if Secret(name) {
		return "(set)"
	}
	return v
}

// afterValue is the warning for text after the value of the setting
// name, which it quotes unless the setting is a secret.
func afterValue(name, rest string) string {
	if Secret(name) {
		return "text after the value ignored, as the reference does"
	}
	return fmt.Sprintf("%q after the value ignored, as the reference does", strings.TrimSpace(rest))
}

// cfgError names where a command failed.
func cfgError(where, cmd string, err error) error {
	return fmt.Errorf("%s: %s: %w", where, strings.TrimSpace(cmd), err)
}

// renamed holds settings of other versions an operator's file may still
// have, with the 0.7.5 way to say them; the reference ignores them ("No such
// command").
var renamed = map[string]string{
	"sv_spectator_slots": "a 0.6 setting: in 0.7 the slots beyond sv_player_slots (up to sv_max_clients) are the spectators'",
	"sv_rcon_ban_time":   "did you mean sv_rcon_bantime?",
	"sv_bindaddr":        "did you mean bindaddr?",
	"sv_register_port":   "did you mean sv_external_port, the port announced to the masters?",
}

// runtimeCommands are console commands of the reference that act on a
// running game; a configuration file has no use for them in twserver.
var runtimeCommands = []string{"status", "kick", "ban", "unban", "bans", "unban_all", "change_map", "restart",
	"pause", "say", "broadcast", "set_team", "set_team_all", "swap_teams", "shuffle_teams", "lock_teams",
	"force_vote", "vote", "shutdown", "reload", "record", "stoprecord", "logout", "tune_dump", "mod_command",
	"mod_status", "toggle", "echo"}

// execCommand executes one command.
func (l *Loader) execCommand(where, cmd, file string) error {
	name, args := splitName(cmd)
	lname := strings.ToLower(name)
	shown := shownCommand(cmd) // the command as warnings and errors show it
	switch lname {
	case "exec":
		a, _, err := parseArgs(args, "r")
		if err != nil {
			return cfgError(where, shown, err)
		}
		if err := l.execFile(a[0], file); err == errExecLoop {
			l.warn("", Warning{where, shown, "the file is already being executed: skipped, as the reference does"})
		} else if err != nil {
			return cfgError(where, shown, err)
		}
		return nil
	case "add_vote", "remove_vote", "clear_votes":
		return l.voteCommand(where, cmd, lname, args)
	case "tune", "tune_reset":
		l.warn(lname, Warning{where, shown, "tuning is not configurable in twserver (the world plays the 0.7.5 default tuning): ignored"})
		return nil
	}
	if row, ok := svRow(lname); ok {
		a, rest, err := parseArgs(args, SettingParams(row))
		if err != nil {
			return cfgError(where, shown, err)
		}
		if len(a) == 0 {
			l.warn("", Warning{where, shown, "no value: nothing set (the reference prints the current value)"})
			return nil
		}
		if strings.TrimSpace(rest) != "" {
			l.warn("", Warning{where, shown, afterValue(name, rest)})
		}
		w, err := l.setValue(row, a[0])
		if err != nil {
			return cfgError(where, shown, err)
		}
		l.origin[row.Key] = where + ": " + shown
		if row.Sv == "sv_map" {
			l.mapFrom = l.origin[row.Key]
		}
		if w != "" {
			l.warn("", Warning{where, shown, w})
		}
		return nil
	}
	if u, ok := unsupported(lname); ok {
		a, _, _ := parseArgs(args, "?s")
		if u.Same == "" || len(a) == 0 || a[0] != u.Same {
			l.warn(lname, Warning{where, shown, "not supported by twserver, ignored: " + u.Reason})
		}
		return nil
	}
	if slices.Contains(runtimeCommands, lname) {
		l.warn(lname, Warning{where, shown, "a console command for a running game, not a setting: ignored in a configuration (type it on the console or over rcon)"})
		return nil
	}
	msg := "no such command in teeworlds-server 0.7.5"
	if hint, ok := renamed[lname]; ok {
		msg += " (" + hint + ")"
	} else {
		msg += didYouMean(lname, settingNames())
	}
	if where == commandLine {
		// A typo on the command line is refused at once (a file name
		// without -f, a flag without its dash); files keep the
		// reference's leniency.
		return cfgError(where, shown, errors.New(msg+"; a file is given with -f FILE or -config FILE"))
	}
	l.warn(lname, Warning{where, name, msg + ": ignored, as the reference does"})
	return nil
}

// voteCommand executes add_vote, remove_vote and clear_votes with the
// reference's checks (CGameContext::ConAddVote): a skipped option is a
// warning, as the reference only prints it.
func (l *Loader) voteCommand(where, cmd, name, args string) error {
	cmd = strings.TrimSpace(cmd)
	switch name {
	case "clear_votes":
		l.cfg.Votes = nil
		return nil
	case "remove_vote":
		a, _, err := parseArgs(args, "s")
		if err != nil {
			return cfgError(where, cmd, err)
		}
		for i, v := range l.cfg.Votes {
			if strings.EqualFold(v.Description, a[0]) {
				l.cfg.Votes = slices.Delete(l.cfg.Votes, i, i+1)
				return nil
			}
		}
		l.warn("", Warning{where, cmd, "no such vote option: nothing removed"})
		return nil
	}
	a, _, err := parseArgs(args, "sr")
	if err != nil {
		return cfgError(where, cmd, err)
	}
	desc, command := strings.TrimLeft(a[0], " "), a[1]
	switch {
	case len(l.cfg.Votes) >= MaxVoteOptions:
		l.warn("", Warning{where, cmd, fmt.Sprintf("already %d vote options: skipped, as the reference does", MaxVoteOptions)})
	case command == "" || len(command) > MaxVoteCmdLen:
		l.warn("", Warning{where, cmd, fmt.Sprintf("invalid command (1..%d bytes): skipped, as the reference does", MaxVoteCmdLen)})
	case desc == "" || len(desc) > MaxVoteDescLen:
		l.warn("", Warning{where, cmd, fmt.Sprintf("invalid option (1..%d bytes): skipped, as the reference does", MaxVoteDescLen)})
	case slices.ContainsFunc(l.cfg.Votes, func(v VoteOption) bool { return strings.EqualFold(v.Description, desc) }):
		l.warn("", Warning{where, cmd, "the option already exists: skipped, as the reference does"})
	default:
		l.origin["vote["+strconv.Itoa(len(l.cfg.Votes))+"]"] = where + ": " + cmd
		l.cfg.Votes = append(l.cfg.Votes, VoteOption{Description: desc, Command: command})
	}
	return nil
}

// EnvPrefix starts the environment name of a key without a console name
// (TWSERVER_METRICS_LISTEN for metrics.listen).
const EnvPrefix = "TWSERVER_"

// EnvName is the environment variable of a dotted key without a console
// name: TWSERVER_ and the key upper-cased with '_' for '.'.
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// ApplyEnv applies the environment: every setting with a console name by
// that name upper-cased (SV_PORT=8304, the reference's meaning and range),
// every key by EnvName (TWSERVER_METRICS_LISTEN=127.0.0.1:9100). A value
// that cannot be read is an error naming the variable; a set SV_*/EC_*
// variable of a setting twserver does not support is a warning.
func (l *Loader) ApplyEnv(lookup func(string) (string, bool)) error {
	bySv := map[string]string{}
	for _, row := range SvNames {
		if !isSvName(row.Sv) {
			continue
		}
		if _, ok := fieldByKey(&l.cfg, row.Key); !ok {
			continue // add_vote: a command
		}
		name := strings.ToUpper(row.Sv)
		v, ok := lookup(name)
		if !ok {
			continue
		}
		where := "environment variable " + name
		w, err := l.setValue(row, v)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if w != "" {
			l.warn("", Warning{where, shownValue(row.Sv, v), w})
		}
		l.origin[row.Key] = where
		if row.Sv == "sv_map" {
			l.mapFrom = where
		}
		bySv[row.Key] = name
	}
	for _, u := range Unsupported {
		if !strings.HasPrefix(u.Sv, "sv_") && !strings.HasPrefix(u.Sv, "ec_") {
			continue
		}
		name := strings.ToUpper(u.Sv)
		if v, ok := lookup(name); ok && v != u.Same {
			l.warn(u.Sv, Warning{"environment variable " + name, shownValue(u.Sv, v), "not supported by twserver, ignored: " + u.Reason})
		}
	}
	for _, key := range Keys() {
		name := EnvName(key)
		v, ok := lookup(name)
		if !ok {
			continue
		}
		if other, dup := bySv[key]; dup {
			return fmt.Errorf("environment variables %s and %s both set %s: keep one", other, name, key)
		}
		f, _ := fieldByKey(&l.cfg, key)
		if err := setTyped(f, v); err != nil {
			return fmt.Errorf("environment variable %s (%s): %w", name, key, err)
		}
		l.origin[key] = "environment variable " + name
		if key == "map.file" {
			l.mapName = ""
		}
	}
	return nil
}

// setTyped sets a field from text by its Go type (TOML's meaning).
func setTyped(f reflect.Value, v string) error {
	switch f.Kind() {
	case reflect.Int:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%q is not a number", v)
		}
		f.SetInt(int64(n))
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		f.SetBool(b)
	case reflect.String:
		f.SetString(v)
	case reflect.Slice:
		f.Set(reflect.ValueOf(strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })))
	default:
		return fmt.Errorf("a %s cannot be set from the environment", f.Type())
	}
	return nil
}

// DefaultMapDirs are the directories a map name is looked up in, in the
// reference's storage order: the user's (~/.local/share/teeworlds/maps),
// the data directory of Debian's teeworlds-data
// (/usr/share/games/teeworlds/data/maps), and the working directory's maps.
func DefaultMapDirs() []string {
	var dirs []string
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		dirs = append(dirs, filepath.Join(x, "teeworlds", "maps"))
	} else if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, ".local", "share", "teeworlds", "maps"))
	}
	return append(dirs, "/usr/share/games/teeworlds/data/maps", "maps")
}

// resolveMap turns a map name from sv_map and a rotation from
// sv_maprotation into files: the name is NAME.map in map.dir or the first
// of MapDirs holding it; with a rotation, map.dir becomes that directory and
// the rotation starts at the named map.
func (l *Loader) resolveMap() error {
	m := &l.cfg.Map
	name, what := l.mapName, "sv_map "+l.mapName
	if name == "" {
		if len(m.Rotation) > 0 && m.Dir == "" {
			if m.File != "" { // map.file starts the rotation in its directory
				name, what, l.mapFrom = m.File, "map.file "+m.File, l.where("map.file", "")
			} else {
				dir, ok := l.findMap(m.Rotation[0])
				if !ok {
					return fmt.Errorf("%s: map %s.map is in none of %s", l.origin["map.rotation"], m.Rotation[0], strings.Join(l.mapDirs(), ", "))
				}
				m.Dir = dir
				return nil
			}
		} else {
			return nil
		}
	}
	var dir, base string
	switch {
	case strings.ContainsAny(name, `/\`) || strings.HasSuffix(name, ".map"):
		dir, base = filepath.Dir(name), strings.TrimSuffix(filepath.Base(name), ".map")
	case name == DefaultMapName && len(m.Rotation) == 0:
		m.File, m.Dir = "", ""
		return nil
	default:
		d, ok := l.findMap(name)
		if !ok {
			return fmt.Errorf("%s: map %s.map is in none of %s", l.mapFrom, name, strings.Join(l.mapDirs(), ", "))
		}
		dir, base = d, name
	}
	if len(m.Rotation) == 0 {
		m.File, m.Dir = filepath.Join(dir, base+".map"), ""
		return nil
	}
	m.File, m.Dir = "", dir
	if i := slices.Index(m.Rotation, base); i > 0 {
		m.Rotation = append(slices.Clone(m.Rotation[i:]), m.Rotation[:i]...)
	} else if i < 0 {
		l.warn("", Warning{l.mapFrom, what, fmt.Sprintf("not in the rotation (sv_maprotation, map.rotation): twserver starts with the rotation's first map, %s", m.Rotation[0])})
	}
	return nil
}

func (l *Loader) mapDirs() []string {
	dirs := l.MapDirs
	if dirs == nil {
		dirs = DefaultMapDirs()
	}
	if l.cfg.Map.Dir != "" {
		dirs = append([]string{l.cfg.Map.Dir}, dirs...)
	}
	return dirs
}

// findMap returns the first map directory holding name.map.
func (l *Loader) findMap(name string) (string, bool) {
	for _, d := range l.mapDirs() {
		if st, err := os.Stat(filepath.Join(d, name+".map")); err == nil && st.Mode().IsRegular() {
			return d, true
		}
	}
	return "", false
}

// Finish resolves map names and validates the configuration; an invalid
// value's error names where it was set (file and line, variable or flag).
func (l *Loader) Finish() (Config, error) {
	if err := l.resolveMap(); err != nil {
		return Config{}, err
	}
	if err := l.cfg.Validate(); err != nil {
		var ie *InvalidError
		if errors.As(err, &ie) {
			key := ie.Key
			if i := strings.IndexByte(key, '.'); i >= 0 && strings.HasPrefix(key, "vote[") {
				key = key[:i]
			}
			if o := l.where(key, ie.Cause); o != "" {
				err = fmt.Errorf("%s: %w", o, err)
			}
		}
		return Config{}, err
	}
	return l.cfg, nil
}

// where says where the value of an invalid key came from: where key was
// set, else where cause (the key that makes it invalid) was, else the TOML
// file, which left it at its default; "" for the defaults alone.
func (l *Loader) where(key, cause string) string {
	if o := l.origin[key]; o != "" {
		return o
	}
	if o := l.origin[cause]; cause != "" && o != "" {
		return o
	}
	return l.file
}

// LoadCfg reads a file in the reference's syntax over the defaults and
// returns the configuration with the warnings.
func LoadCfg(path string) (Config, []Warning, error) {
	l := NewLoader()
	if err := l.ExecFile(path); err != nil {
		return Config{}, l.Warnings, err
	}
	c, err := l.Finish()
	return c, l.Warnings, err
}

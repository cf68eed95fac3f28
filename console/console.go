package console

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"twserver/config"
)

// MaxLine is the longest console line run; a longer line is cut there.
const MaxLine = 512

// MaxExecDepth bounds nested exec commands.
const MaxExecDepth = 8

// MaxExecFileSize bounds the size of a file run by exec in bytes.
const MaxExecFileSize = 64 << 10

// ErrShutdown is returned by Run when a command (shutdown) asked the server
// to stop.
var ErrShutdown = errors.New("console: shutdown requested")

// Kind says where a console line comes from.
type Kind uint8

const (
	// Stdin is the server's standard input (also the default of output
	// printed outside any command).
	Stdin Kind = iota
	// Rcon is an authenticated rcon client; Caller.ID is its client id.
	Rcon
	// Side is a side channel: an econ connection or the command FIFO.
	Side
	// Vote is a passed vote's command.
	Vote
	// Admin is an administration page.
	Admin
)

// Caller is who runs a console line. The zero value is standard input.
type Caller struct {
	// Kind is where the line comes from.
	Kind Kind
	// ID is the rcon client id for Rcon (0 otherwise).
	ID int
}

// The reference's numbers for a command's caller (teehistorian
// CONSOLE_COMMAND, the ban checks): an rcon client's id, or these.
const (
	// CIDConsole is the server console (stdin and the side channels).
	CIDConsole = -1
	// CIDVote is a passed vote (the reference's RCON_CID_VOTE).
	CIDVote = -2
)

// RconCaller is rcon client id.
func RconCaller(id int) Caller { return Caller{Kind: Rcon, ID: id} }

// CID returns the caller as the reference numbers it: the rcon client's
// id, CIDVote or CIDConsole.
func (c Caller) CID() int {
	switch c.Kind {
	case Rcon:
		return c.ID
	case Vote:
		return CIDVote
	}
	return CIDConsole
}

// Handler runs one parsed command for caller, printing with Console.Print;
// it returns ErrShutdown to stop the server, any other error is printed.
type Handler func(c Caller, a Args) error

// Host is what the console needs from the game server that owns it; the
// server's game loop implements it. Every method is called from the
// goroutine that called Run or Print.
type Host interface {
	// Output shows one line the console printed while running caller's
	// line (or outside a command: caller is then the zero Caller).
	Output(c Caller, line string)
	// Config returns the running configuration (read only).
	Config() *config.Config
	// SetSetting makes next the running configuration, setting name
	// having changed to val (as the configuration stores it), and applies
	// it to the game; warn is config.SetSetting's note ("" for none).
	SetSetting(name, val, warn string, next config.Config)
	// Record records a command about to run (teehistorian).
	Record(c Caller, name string, args []string)
	// MapName returns the current map's name (sv_map without a value).
	MapName() string
	// Shutdown asks the server to stop once the current tick is done (a
	// shutdown inside a file run by exec).
	Shutdown()
}

// Console runs console lines: the command table, the live settings and the
// output. It is not safe for concurrent use: the game loop owns it (see
// doc.go).
type Console struct {
	host      Host
	table     map[string]Handler // every command of commands, by name
	runs      []run              // the lines being run, outermost first
	execStack []string           // files being run by exec, outermost first
}

// run is one line being run: its caller and, for Collect, its output.
type run struct {
	caller Caller
	out    *[]string
}

// New returns a console printing to and changing settings through host,
// running handlers[name] for each command of Commands that the console does
// not run itself (echo, exec, toggle, shutdown, upgrade, help). It fails when a
// command has no handler or a handler names no such command.
func New(host Host, handlers map[string]Handler) (*Console, error) {
	cn := &Console{host: host, table: make(map[string]Handler, len(commands))}
	own := map[string]Handler{"echo": cn.echo, "exec": cn.exec, "toggle": cn.toggle, "shutdown": shutdown, "upgrade": cn.upgrade, "help": cn.help}
	for name, h := range handlers {
		if _, ok := own[name]; ok || h == nil {
			return nil, fmt.Errorf("console: handler for %q: the console runs it, or it is nil", name)
		}
		if _, ok := lookupCommand(name); !ok || commandAliases[name] != "" {
			return nil, fmt.Errorf("console: handler for %q: no such command", name)
		}
	}
	for _, c := range commands {
		h, ok := own[c.Name]
		if !ok {
			h = handlers[c.Name]
		}
		if h == nil {
			return nil, fmt.Errorf("console: no handler for command %q", c.Name)
		}
		cn.table[c.Name] = h
	}
	return cn, nil
}

// Run runs one console line for caller: its commands in order (cmdparse.go),
// each line printed going to the host's Output. It returns ErrShutdown
// when a command asked the server to stop (the rest of the line is not
// run). Lines may nest (a vote's command run by force_vote).
func (cn *Console) Run(c Caller, line string) error {
	cn.runs = append(cn.runs, run{caller: c})
	defer cn.pop()
	return cn.runLine(c, line)
}

// Exec runs the command name of the table with args for caller as Run
// runs a parsed line (recorded, its output shown to caller): the typed path
// of a caller that holds a command's arguments already, such as a vote's
// kick, ban or move to the spectators. It returns an error for a name not
// in the table, ErrShutdown as Run.
func (cn *Console) Exec(c Caller, name string, args ...string) error {
	h, ok := cn.table[name]
	if !ok {
		return fmt.Errorf("console: no command %q", name)
	}
	cn.runs = append(cn.runs, run{caller: c})
	defer cn.pop()
	return cn.call(c, name, h, args)
}

// Collect runs one console line for caller as Run does and also returns
// the lines printed meanwhile (for a caller that shows a command's reply,
// such as an administration page).
func (cn *Console) Collect(c Caller, line string) ([]string, error) {
	var out []string
	cn.runs = append(cn.runs, run{caller: c, out: &out})
	defer cn.pop()
	err := cn.runLine(c, line)
	return out, err
}

func (cn *Console) pop() { cn.runs = cn.runs[:len(cn.runs)-1] }

// Print prints one output line: to the host's Output for the caller of the
// innermost line being run (the zero Caller outside a command) and to
// every Collect running.
func (cn *Console) Print(line string) {
	var c Caller
	if n := len(cn.runs); n > 0 {
		c = cn.runs[n-1].caller
	}
	cn.host.Output(c, line)
	for _, r := range cn.runs {
		if r.out != nil {
			*r.out = append(*r.out, line)
		}
	}
}

func (cn *Console) runLine(c Caller, line string) error {
	if len(line) > MaxLine {
		line = line[:MaxLine]
	}
	for _, part := range splitCommands(line) {
		if err := cn.runCommand(c, part); err != nil {
			return err
		}
	}
	return nil
}

// runCommand parses and runs one command.
func (cn *Console) runCommand(c Caller, part string) error {
	name, rest := splitName(part)
	cmd, ok := lookupCommand(name)
	if !ok {
		if cn.runSetting(c, name, rest) {
			return nil
		}
		for _, u := range unsupported {
			if strings.EqualFold(u.Name, name) {
				cn.Print(fmt.Sprintf("%s is not supported by twserver: %s", u.Name, u.Reason))
				return nil
			}
		}
		cn.Print("No such command: " + name + ".")
		return nil
	}
	args, err := parseArgs(rest, cmd.Params)
	if err == nil && len(args) == 0 && strings.EqualFold(name, "sv_map") {
		// the reference's sv_map is a setting: without a value it prints it
		cn.Print("Value: " + cn.host.MapName())
		return nil
	}
	if err != nil {
		cn.Print(fmt.Sprintf("Invalid arguments... Usage: %s %s", cmd.Name, cmd.Params))
		return nil
	}
	return cn.call(c, cmd.Name, cn.table[cmd.Name], args)
}

// call records command name and runs its handler h; a handler's error
// other than ErrShutdown is printed.
func (cn *Console) call(c Caller, name string, h Handler, args []string) error {
	cn.host.Record(c, name, args)
	err := h(c, Args(args))
	if err != nil && err != ErrShutdown {
		cn.Print(err.Error())
		return nil
	}
	return err
}

// Valid reports whether every command of line names a command or setting
// and has the arguments its parameters require (add_vote's check).
func Valid(line string) bool {
	parts := splitCommands(line)
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		name, rest := splitName(p)
		params := ""
		if c, ok := lookupCommand(name); ok {
			params = c.Params
		} else if row, ok := config.Setting(name); ok {
			params = config.SettingParams(row) // a setting: sv_scorelimit 10
		} else {
			return false
		}
		if _, err := parseArgs(rest, params); err != nil {
			return false
		}
	}
	return true
}

func shutdown(Caller, Args) error { return ErrShutdown }

func (cn *Console) echo(_ Caller, a Args) error {
	cn.Print(a.Str(0))
	return nil
}

func (cn *Console) help(Caller, Args) error {
	for _, c := range commands {
		cn.Print(fmt.Sprintf("%-17s %s", c.Name, c.Help))
	}
	return nil
}

// RelPath checks a file argument: a relative path that does not leave the
// working directory (the reference allows only paths inside its storage).
func RelPath(name string) (string, bool) {
	if name == "" || filepath.IsAbs(name) || !filepath.IsLocal(name) {
		return "", false
	}
	return filepath.Clean(name), true
}

// exec runs the lines of a file, bounded in size and nesting; a file
// already being run is skipped (the reference's loop guard).
func (cn *Console) exec(c Caller, a Args) error {
	name := a.Str(0)
	p, ok := RelPath(name)
	if !ok {
		cn.Print(fmt.Sprintf("failed to open '%s'", name))
		cn.Print("Info: only relative paths inside the working directory are allowed")
		return nil
	}
	if slices.Contains(cn.execStack, p) || len(cn.execStack) >= MaxExecDepth {
		return nil
	}
	data, err := readBounded(p, MaxExecFileSize)
	if err != nil {
		cn.Print(fmt.Sprintf("failed to open '%s'", name))
		return nil
	}
	cn.Print(fmt.Sprintf("executing '%s'", name))
	cn.execStack = append(cn.execStack, p)
	defer func() { cn.execStack = cn.execStack[:len(cn.execStack)-1] }()
	for line := range strings.Lines(string(data)) {
		if err := cn.runLine(c, strings.TrimRight(line, "\r\n")); err == ErrShutdown {
			cn.host.Shutdown()
			return nil
		}
	}
	return nil
}

// readBounded reads a regular file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > limit {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, limit)
	}
	return os.ReadFile(path)
}

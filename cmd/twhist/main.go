// Command twhist reads teehistorian files (twserver's and DDNet's).
//
//	twhist dump FILE            one line per message: offset, tick, kind, fields
//	twhist json FILE            JSON summary: header, counts per kind, ticks, joins, drops
//	twhist replay [-map PATH] [-mapdir DIR] FILE
//	                            re-simulate a twserver recording and compare positions
//	twhist demo [flags] -o OUT.demo FILE
//	                            re-simulate a twserver recording into a 0.7 demo
//	twhist index [-mapdir DIR] DIR
//	                            index a recordings directory (SQLite)
//	twhist find -dir DIR [flags]
//	                            games and events of the index as demo commands
//	twhist serve -dir DIR [-mapdir DIR] [-listen ADDR]
//	                            an archive site: the recordings in the browser
//
//	twhist help                 usage (also -h)
//
// Exit status: 0 success, 1 replay divergence (or a file that does not read
// to its end), 2 usage, I/O or map error, or a file the replay cannot reproduce.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
)

const usage = `usage: twhist COMMAND [flags] FILE

Reads teehistorian files (twserver's and DDNet's).

commands:
  dump FILE       one line per message: byte offset, tick, kind, fields
  json FILE       JSON summary: header, counts per kind, first/last tick,
                  joins, drops, finished
  replay [-map PATH | -mapdir DIR] FILE
                  re-simulate a twserver recording and compare every
                  recorded position with the simulation (flags before FILE;
                  default map: the embedded one)
  demo [-map PATH | -mapdir DIR] [-format 07|06] [-pov free|NAME|CID]
       [-from T] [-to T] -o OUT.demo FILE
                  re-simulate a twserver recording and write a demo: 07
                  (default) for the Teeworlds 0.7.5 client, 06 for the
                  DDNet client (0.6 form): free view (the server
                  demo's view) or the view of one player (by name or client
                  id); -from/-to cut a clip (T: seconds from the game's
                  start as 75 or 1:15, or a server tick as @3750). A
                  recording cut short gives the demo up to its last whole
                  tick with a warning; a recording the simulation does not
                  reproduce fails (exit 1) naming the first divergent tick,
                  and no demo is written
  index [-mapdir DIR] DIR
                  index the teehistorian files of DIR (incrementally) into
                  DIR/.twhist-index.sqlite: games, players' names, joins,
                  leaves, kills, deaths, flag captures, chat lines to all
  find -dir DIR [-player NAME] [-map NAME] [-type dm|tdm|ctf|lms|lts]
       [-since T] [-until T] [-event join|leave|kill|death|capture|chat]
       [-text WORD] [-mapdir DIR] [-limit N] [-json]
                  games (or events) of the index, one per line as the
                  twhist demo command that shows it (-pov, -from/-to
                  filled in); -json: one JSON object per line (file,
                  game_uuid, map, tick, player, ..., command). T: 2006-01-02,
                  "2006-01-02 15:04" or RFC 3339. -text: chat lines
                  holding WORD (plain text, ASCII case ignored)
  serve -dir DIR [-mapdir DIR] [-listen ADDR] [-chat=false]
                  an archive site of DIR's recordings (default
                  127.0.0.1:8399): games newest first, searchable by
                  player, map, game type and date, each watched in the
                  browser (/watch/NAME) or downloaded as a demo (0.7 or
                  DDNet, free view or a player's, whole or a clip); new
                  files are indexed as they appear
  help            this text

exit status: 0 success; 1 a divergence, or a file that does not read to
its end (the error names the byte offset); 2 usage, I/O or map errors, or a
file the replay cannot reproduce.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// isHelp reports whether arg asks for the usage text (as the flag package
// reads -h and -help), not for a file of that name.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "--h":
		return true
	}
	return false
}

// usageError prints a one-line complaint and the usage text; it returns
// the usage exit status.
func usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "twhist: "+format+"\n\n", a...)
	fmt.Fprint(stderr, usage)
	return 2
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if args[0] == "help" || isHelp(args[0]) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	switch cmd := args[0]; cmd {
	case "dump", "json":
		if len(args) == 2 && isHelp(args[1]) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		if len(args) != 2 {
			return usageError(stderr, "%s takes one FILE, got %d arguments", cmd, len(args)-1)
		}
		do := dump
		if cmd == "json" {
			do = summary
		}
		return withFile(args[1], stderr, func(r *teehist.Reader, h *teehist.Header) int { return do(r, h, stdout, stderr) })
	case "demo":
		return demoCmd(args[1:], stdout, stderr)
	case "index":
		return indexCmd(args[1:], stdout, stderr)
	case "find":
		return findCmd(args[1:], stdout, stderr)
	case "serve":
		return serveCmd(args[1:], stdout, stderr)
	case "replay":
		fs, mapPath, mapDir := mapFlags("replay")
		if code, ok := parseFileFlags(fs, args[1:], stdout, stderr); !ok {
			return code
		}
		return withFile(fs.Arg(0), stderr, func(r *teehist.Reader, h *teehist.Header) int {
			return doReplay(r, h, *mapPath, *mapDir, stdout, stderr)
		})
	default:
		return usageError(stderr, "unknown command %q", cmd)
	}
}

// mapFlags returns a flag set for command cmd with -map and -mapdir.
func mapFlags(cmd string) (fs *flag.FlagSet, mapPath, mapDir *string) {
	fs = flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mapPath = fs.String("map", "", "map file of the recording (default: the embedded map, or -mapdir)")
	mapDir = fs.String("mapdir", "", "directory holding NAME.map")
	return fs, mapPath, mapDir
}

// parseFileFlags parses the flags of a command that takes one FILE after
// them; when it reports false, the command ends with the exit code given
// (usage shown).
func parseFileFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0, false
	} else if err != nil {
		return usageError(stderr, "%s: %v", fs.Name(), err), false
	}
	if fs.NArg() != 1 {
		return usageError(stderr, "%s takes one FILE after its flags, got %d arguments", fs.Name(), fs.NArg()), false
	}
	return 0, true
}

func withFile(path string, stderr io.Writer, fn func(*teehist.Reader, *teehist.Header) int) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		fmt.Fprintf(stderr, "twhist: %s is a directory, not a teehistorian file\n", path)
		return 2
	}
	r := teehist.NewReader(f)
	h, err := r.ReadHeader()
	if err != nil {
		fmt.Fprintf(stderr, "twhist: %s: %v\n", path, err)
		return 1
	}
	return fn(r, h)
}

// formatMessage returns the fields of m as "key=value" text.
func formatMessage(m *teehist.Message) string {
	var b strings.Builder
	switch m.Kind {
	case teehist.KindPlayerDiff:
		fmt.Fprintf(&b, "cid=%d dx=%d dy=%d", m.CID, m.X, m.Y)
	case teehist.KindTickSkip:
		fmt.Fprintf(&b, "dt=%d", m.DT)
	case teehist.KindPlayerNew:
		fmt.Fprintf(&b, "cid=%d x=%d y=%d", m.CID, m.X, m.Y)
	case teehist.KindPlayerOld, teehist.KindJoin:
		fmt.Fprintf(&b, "cid=%d", m.CID)
	case teehist.KindInputNew, teehist.KindInputDiff:
		fmt.Fprintf(&b, "cid=%d input=%v", m.CID, m.Input)
	case teehist.KindMessage:
		fmt.Fprintf(&b, "cid=%d size=%d", m.CID, len(m.Data))
		if len(m.Data) > 0 {
			id := int(m.Data[0])
			if id&0x80 == 0 && id&0x40 == 0 {
				fmt.Fprintf(&b, " msg=%d sys=%d", id>>1, id&1)
			}
		}
		fmt.Fprintf(&b, " data=%x", m.Data)
	case teehist.KindDrop:
		fmt.Fprintf(&b, "cid=%d reason=%q", m.CID, m.Reason)
	case teehist.KindConsoleCommand:
		fmt.Fprintf(&b, "cid=%d flags=%d cmd=%q args=%q", m.CID, m.Flags, m.Cmd, m.Args)
	case teehist.KindEx:
		fmt.Fprintf(&b, "%s uuid=%s", m.Ex, m.UUID)
		fields, err := teehist.DecodeEx(m.Ex, m.Data)
		for _, f := range fields {
			switch f.Type {
			case 'i':
				fmt.Fprintf(&b, " %d", f.Int)
			case 's':
				fmt.Fprintf(&b, " %q", f.Str)
			case 'u':
				fmt.Fprintf(&b, " %s", f.UUID)
			case 'r':
				fmt.Fprintf(&b, " %x", f.Raw)
			}
		}
		if err != nil {
			fmt.Fprintf(&b, " (payload %x: %v)", m.Data, err)
		}
		if m.Ex == teehist.ExServerMsg {
			if id, sys, _, err := netproto.ParseMsgHeader(m.Data); err == nil && !sys {
				fmt.Fprintf(&b, " msg=%s", gamemsg.Name(id))
			}
		}
	}
	return b.String()
}

func dump(r *teehist.Reader, h *teehist.Header, stdout, stderr io.Writer) int {
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	fmt.Fprintf(w, "header %s\n", h.Raw)
	var m teehist.Message
	for {
		err := r.Next(&m)
		if err == io.EOF {
			return 0
		}
		if err != nil {
			w.Flush()
			fmt.Fprintln(stderr, "twhist:", err)
			return 1
		}
		fmt.Fprintf(w, "%d tick=%d %s %s\n", m.Offset, m.Tick, m.Kind, formatMessage(&m))
	}
}

// Summary is the output of "twhist json".
type Summary struct {
	Header    json.RawMessage `json:"header"`
	Bytes     int64           `json:"bytes"`
	Messages  int             `json:"messages"`
	Counts    map[string]int  `json:"counts"`
	FirstTick int32           `json:"first_tick"`
	LastTick  int32           `json:"last_tick"`
	Finished  bool            `json:"finished"`
	Error     string          `json:"error,omitempty"`
	Joins     []Event         `json:"joins"`
	Drops     []Event         `json:"drops"`
}

// Event is one join or drop.
type Event struct {
	Tick   int32  `json:"tick"`
	CID    int32  `json:"cid"`
	Reason string `json:"reason,omitempty"`
}

func summary(r *teehist.Reader, h *teehist.Header, stdout, stderr io.Writer) int {
	s := Summary{Header: h.Raw, Counts: map[string]int{}, FirstTick: -1, Joins: []Event{}, Drops: []Event{}}
	var m teehist.Message
	code := 0
	for {
		err := r.Next(&m)
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Error = err.Error()
			code = 1
			break
		}
		s.Messages++
		k := m.Kind.String()
		if m.Kind == teehist.KindEx {
			k = m.Ex.String()
		}
		s.Counts[k]++
		if s.FirstTick < 0 && m.Tick > 0 {
			s.FirstTick = m.Tick
		}
		s.LastTick = m.Tick
		switch m.Kind {
		case teehist.KindJoin:
			s.Joins = append(s.Joins, Event{Tick: m.Tick, CID: m.CID})
		case teehist.KindDrop:
			s.Drops = append(s.Drops, Event{Tick: m.Tick, CID: m.CID, Reason: m.Reason})
		case teehist.KindFinish:
			s.Finished = true
		}
	}
	s.Bytes = r.Offset()
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&s); err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	return code
}

// loadMap returns the map file at path, else the recording's map from dir
// or the embedded map (replay.LoadMap: the name cannot leave dir).
func loadMap(h *teehist.Header, path, dir string) (*twmap.Map, error) {
	if path == "" {
		m, err := replay.LoadMap(dir, h.MapName)
		if err != nil && dir == "" {
			return nil, fmt.Errorf("%w: give -map or -mapdir", err)
		}
		return m, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return twmap.Load(strings.TrimSuffix(filepath.Base(path), ".map"), data)
}

func doReplay(r *teehist.Reader, h *teehist.Header, mapPath, mapDir string, stdout, stderr io.Writer) int {
	m, err := loadMap(h, mapPath, mapDir)
	if err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	res, err := replay.Run(r, h, m)
	if err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		if errors.Is(err, replay.ErrMapMismatch) || errors.Is(err, replay.ErrNotReplayable) {
			return 2
		}
		if res == nil {
			return 2
		}
		return 1
	}
	fmt.Fprintf(stdout, "replayed %d ticks, %d positions compared, %d checkpoints checked, finished=%v", res.Ticks, res.Compared, res.Checkpoints, res.Finished)
	if len(res.Ignored) > 0 {
		fmt.Fprintf(stdout, ", commands without effect on the world: %v", res.Ignored)
	}
	fmt.Fprintln(stdout)
	if d := res.Divergence; d != nil {
		fmt.Fprintf(stdout, "DIVERGENCE at %v\n", d)
		return 1
	}
	fmt.Fprintln(stdout, "no divergence")
	return 0
}

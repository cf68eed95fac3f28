package replay

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"twserver/demo"
	"twserver/demo/gamedemo"
	"twserver/gamemsg"
	"twserver/teehist"
	"twserver/world"
	"twserver/world/map06"
	"twserver/world/twmap"
)

// FreeView is DemoOptions.View for a spectator's view of the whole game
// (the server demo's view).
const FreeView = -1

// DemoOptions say which demo WriteDemo makes.
type DemoOptions struct {
	// View is FreeView or the client id whose view is recorded (the
	// snapshots that player's client received while in the game).
	View int
	// From and To bound the clip in server ticks (both included); From 0
	// starts at the beginning, To 0 runs to the end of the recording.
	From, To int32
	// Time stamps the demo header (zero: the recording's start time).
	Time time.Time
	// DDNet makes a 0.6 demo for the DDNet client (dialect6's translation)
	// instead of a 0.7 one.
	DDNet bool
}

// DemoResult describes a demo WriteDemo made.
type DemoResult struct {
	// Replay is the replay's result (ticks, positions compared, finished).
	Replay *Result
	// FirstTick and LastTick are the ticks of the first and last snapshot
	// in the demo (-1 when there is none).
	FirstTick, LastTick int32
	// Snapshots counts the snapshot ticks recorded.
	Snapshots int
	// Bytes is the size of the demo.
	Bytes int64
}

// ErrDivergence is returned when the simulation stops matching the
// recording: the file is another server's, or its map or rules differ from
// what the header says. The demo written up to then must be discarded.
var ErrDivergence = errors.New("replay: the recording diverges from the simulation")

// ErrNoSnapshot is returned when the demo would hold no snapshot (an empty
// range, or a player who was never in the game in it).
var ErrNoSnapshot = errors.New("replay: no snapshot in the demo")

// demoWriter records the replayed game into a demo.Game within a range of ticks.
type demoWriter struct {
	g        *gamedemo.Game
	from, to int32
	first    int32
	snaps    int
	err      error
}

func (d *demoWriter) inRange(tick int32) bool {
	return tick >= d.from && (d.to <= 0 || tick <= d.to)
}

// AfterTick implements Observer: the snapshot of a snapshot tick in range.
func (d *demoWriter) AfterTick(w *world.World, snapshot bool) {
	if !snapshot || !d.inRange(w.CurrentTick()) || d.err != nil {
		return
	}
	before := d.g.Enc.LastTick()
	d.err = d.g.Snapshot(w)
	if d.g.Enc.LastTick() != before {
		if d.snaps == 0 {
			d.first = w.CurrentTick()
		}
		d.snaps++
	}
}

// Event implements Observer.
func (d *demoWriter) Event(e world.Event) {
	if d.snaps > 0 {
		d.g.Event(e)
	}
}

// Message implements Observer.
func (d *demoWriter) Message(m gamemsg.Message) {
	if d.snaps > 0 {
		d.g.Message(m)
	}
}

// Enter implements Observer.
func (d *demoWriter) Enter(cid int) { d.g.Enter(cid) }

// Leave implements Observer.
func (d *demoWriter) Leave(cid int, name, reason string) {
	if d.snaps > 0 {
		d.g.Leave(cid, name, reason)
	}
}

// WriteDemo re-simulates the recording read by r (after its header h) on
// map m and writes a 0.7 demo of it to out: the server demo's snapshots and
// messages for FreeView, or what one player's client received. When out is
// also an io.WriterAt (a file), the header's length and markers are filled
// in at the end. A file cut short gives the demo up to its last whole tick
// (DemoResult.Replay.Truncated); a divergence gives ErrDivergence naming
// the tick, and the demo written must then be thrown away.
func WriteDemo(out io.Writer, r *teehist.Reader, h *teehist.Header, m *twmap.Map, opt DemoOptions) (*DemoResult, error) {
	e, err := New(h, m)
	if err != nil {
		return nil, err
	}
	return e.WriteDemo(out, r, opt)
}

// WriteDemo is the package's WriteDemo on a new Engine (r after its header).
func (e *Engine) WriteDemo(out io.Writer, r *teehist.Reader, opt DemoOptions) (*DemoResult, error) {
	if e.obs != nil {
		return nil, errors.New("replay: WriteDemo on an engine with an observer")
	}
	if opt.View < FreeView || opt.View >= world.MaxClients {
		return nil, fmt.Errorf("replay: view %d is not a client id", opt.View)
	}
	kind := "server"
	if opt.View != FreeView {
		kind = "client"
	}
	stamp := opt.Time
	if stamp.IsZero() {
		stamp = e.start
	}
	m := e.m
	enc, g := demo.NewEncoder, gamedemo.NewGame
	data, crc := m.Data, m.CRC
	if opt.DDNet {
		enc, g = demo.NewEncoder6, gamedemo.NewGame6
		// the map a DDNet client is sent: its 0.6 variant, else the map as is
		if v, err := map06.Derive(m); err == nil {
			data, crc = v.Data, v.CRC
		}
	}
	d := &demoWriter{g: g(enc(kind, m.Name, data, crc, stamp), opt.View), from: opt.From, to: opt.To}
	e.SetObserver(d)
	return e.writeDemo(out, r, d, opt)
}

// writeDemo feeds r to e, which records into d, and writes the demo to out.
func (e *Engine) writeDemo(out io.Writer, r *teehist.Reader, d *demoWriter, opt DemoOptions) (*DemoResult, error) {
	enc := d.g.Enc
	e.acceptCut = true
	res := &DemoResult{FirstTick: -1, LastTick: -1}
	flush := func() error {
		b := enc.Bytes()
		if len(b) == 0 {
			return nil
		}
		n, err := out.Write(b)
		res.Bytes += int64(n)
		enc.Clear()
		return err
	}
	var msg teehist.Message
	for {
		ok, err := e.read(r, &msg)
		if err != nil {
			return res, err
		}
		if !ok || opt.To > 0 && msg.Tick > opt.To {
			break
		}
		if e.Feed(&msg) {
			if e.err != nil {
				return res, e.err
			}
			break
		}
		if d.err != nil {
			return res, d.err
		}
		if err := flush(); err != nil {
			return res, err
		}
	}
	if !e.res.Truncated {
		e.compare()
	}
	res.Replay = e.Result()
	if dv := res.Replay.Divergence; dv != nil {
		return res, fmt.Errorf("%w at %v", ErrDivergence, dv)
	}
	if err := flush(); err != nil {
		return res, err
	}
	if d.snaps == 0 {
		return res, ErrNoSnapshot
	}
	res.FirstTick, res.LastTick, res.Snapshots = d.first, enc.LastTick(), d.snaps
	if wa, ok := out.(io.WriterAt); ok {
		if err := demo.Patch(wa, enc.Length(), enc.Markers()); err != nil {
			return res, err
		}
	}
	return res, nil
}

// MaxNamesListed bounds the names FindStint's error lists.
const MaxNamesListed = 64

// MaxStints bounds the stints of one name FindStint keeps: a file that
// gives a name more often (a hostile one) is read to its end all the same,
// its later stints left out.
const MaxStints = 1024

// Stint is a time one name held one client slot: from the tick the name
// was given to the client (its join or a rename) to the tick the client
// dropped, To -1 when it was still there at the end of the recording. A
// rename in between does not end it: the client is the same.
type Stint struct {
	CID      int
	From, To int32
}

// String says which client held the name and when, in the words both
// FindStint's error and twhist use: "client 15, ticks 1 to 100", or
// "client 14, tick 300 to the end" while it was there at the end.
func (s Stint) String() string {
	if s.To < 0 {
		return fmt.Sprintf("client %d, tick %d to the end", s.CID, s.From)
	}
	return fmt.Sprintf("client %d, ticks %d to %d", s.CID, s.From, s.To)
}

// overlaps reports whether s meets the ticks from..to (to 0: to the end).
func (s Stint) overlaps(from, to int32) bool {
	return (to == 0 || s.From <= to) && (s.To < 0 || s.To >= from)
}

// FindPlayer reads r (after its header) and returns the client id of the
// first player named name (FindStint over the whole recording).
func FindPlayer(r *teehist.Reader, name string) (int, error) {
	st, err := FindStint(r, name, 0, 0)
	return st.CID, err
}

// FindStint reads r (after its header) to its end and returns the first
// stint of the player named name that meets the ticks from..to (to 0: to
// the end), so a view of that name shows that player and not whoever held
// the slot before or after them (slots are reused; a bot's name may come
// back in another slot). The error of a name never given lists the names
// that were (at most MaxNamesListed, and says when there were more); that
// of a name not in the game in the range lists its stints.
func FindStint(r *teehist.Reader, name string, from, to int32) (Stint, error) {
	var m teehist.Message
	var names []string
	more := false
	var stints []Stint
	var open [teehist.MaxClients]int // 1 + the index in stints of cid's stint of name, 0 for none
	for r.Next(&m) == nil {
		cid := int(m.CID)
		switch {
		case m.Kind == teehist.KindDrop && cid >= 0 && cid < teehist.MaxClients && open[cid] > 0:
			stints[open[cid]-1].To = m.Tick
			open[cid] = 0
		case m.Kind == teehist.KindEx && m.Ex == teehist.ExPlayerName:
			fs, err := teehist.DecodeEx(m.Ex, m.Data)
			if err != nil || len(fs) != 2 {
				continue
			}
			cid := int(fs[0].Int)
			if fs[1].Str == name {
				if cid >= 0 && cid < teehist.MaxClients && open[cid] == 0 && len(stints) < MaxStints {
					stints = append(stints, Stint{CID: cid, From: m.Tick, To: -1})
					open[cid] = len(stints)
				}
				continue
			}
			if q := strconv.Quote(fs[1].Str); !slices.Contains(names, q) {
				if len(names) < MaxNamesListed {
					names = append(names, q)
				} else {
					more = true
				}
			}
		}
	}
	if len(stints) == 0 {
		list := strings.Join(names, ", ")
		if more {
			list += fmt.Sprintf(" and more: only the first %d are listed", MaxNamesListed)
		}
		return Stint{}, fmt.Errorf("no player named %q in the recording (names: %s)", name, list)
	}
	for _, st := range stints { // in the order the name was given
		if st.overlaps(from, to) {
			return st, nil
		}
	}
	var b strings.Builder
	for i, st := range stints[:min(len(stints), 8)] {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(st.String())
	}
	if len(stints) > 8 {
		fmt.Fprintf(&b, " and %d more", len(stints)-8)
	}
	return Stint{}, fmt.Errorf("player %q was not in the game in the range (%s)", name, b.String())
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
	"twserver/world/twmap"
)

// parseTime reads a -from/-to value: seconds from the game's start ("75"),
// minutes and seconds ("1:15") or a server tick ("@3750"). It returns a tick.
func parseTime(s string) (int32, error) {
	bad := fmt.Errorf("time %q: want seconds (75), m:ss (1:15) or @TICK", s)
	if t, ok := strings.CutPrefix(s, "@"); ok {
		v, err := strconv.ParseInt(t, 10, 32)
		if err != nil || v < 0 || v > replay.MaxTicks {
			return 0, bad
		}
		return int32(v), nil
	}
	secs := 0.0
	for part := range strings.SplitSeq(s, ":") {
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || v < 0 {
			return 0, bad
		}
		secs = secs*60 + v
	}
	if secs*50 > replay.MaxTicks {
		return 0, bad
	}
	return int32(secs * 50), nil
}

// findStint returns the first stint of the player named name in the file
// at path that meets the ticks from..to (replay.FindStint).
func findStint(path, name string, from, to int32) (replay.Stint, error) {
	f, err := os.Open(path)
	if err != nil {
		return replay.Stint{}, err
	}
	defer f.Close()
	r := teehist.NewReader(f)
	if _, err := r.ReadHeader(); err != nil {
		return replay.Stint{}, err
	}
	return replay.FindStint(r, name, from, to)
}

// clipToStint narrows the demo's range to st, the time its player held the
// slot, and reports whether it changed.
func clipToStint(opt *replay.DemoOptions, st replay.Stint) bool {
	from, to := opt.From, opt.To
	opt.From = max(opt.From, st.From)
	if st.To >= 0 && (opt.To == 0 || st.To < opt.To) {
		opt.To = st.To
	}
	return opt.From != from || opt.To != to
}

// demoCmd is "twhist demo".
func demoCmd(args []string, stdout, stderr io.Writer) int {
	fs, mapPath, mapDir := mapFlags("demo")
	format := fs.String("format", "07", "07 (Teeworlds 0.7) or 06 (DDNet)")
	pov := fs.String("pov", "free", "free, a player name or a client id")
	from := fs.String("from", "", "start of the clip")
	to := fs.String("to", "", "end of the clip")
	out := fs.String("o", "", "output demo file")
	if code, ok := parseFileFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if *out == "" {
		return usageError(stderr, "demo: -o OUT.demo is required")
	}
	if *format != "07" && *format != "06" {
		return usageError(stderr, "demo: -format %q: want 07 or 06", *format)
	}
	opt := replay.DemoOptions{View: replay.FreeView, DDNet: *format == "06"}
	var err error
	if *from != "" {
		if opt.From, err = parseTime(*from); err != nil {
			return usageError(stderr, "demo: -from: %v", err)
		}
	}
	if *to != "" {
		if opt.To, err = parseTime(*to); err != nil {
			return usageError(stderr, "demo: -to: %v", err)
		}
		if opt.To < opt.From || opt.To == 0 {
			return usageError(stderr, "demo: -to %s is not after -from", *to)
		}
	}
	path := fs.Arg(0)
	if *pov != "free" {
		if cid, err := strconv.Atoi(*pov); err == nil {
			if cid < 0 || cid >= world.MaxClients {
				return usageError(stderr, "demo: -pov %d is not a client id", cid)
			}
			opt.View = cid
		} else {
			st, err := findStint(path, *pov, opt.From, opt.To)
			if err != nil {
				fmt.Fprintln(stderr, "twhist:", err)
				return 2
			}
			opt.View = st.CID
			if clipToStint(&opt, st) && (*from != "" || *to != "") {
				fmt.Fprintf(stderr, "twhist: %s held %s: the demo covers that time only\n", *pov, st)
			}
		}
	}
	return withFile(path, stderr, func(r *teehist.Reader, h *teehist.Header) int {
		m, err := loadMap(h, *mapPath, *mapDir)
		if err != nil {
			fmt.Fprintln(stderr, "twhist:", err)
			return 2
		}
		return writeDemoFile(*out, r, h, m, opt, stdout, stderr)
	})
}

// writeDemoFile writes the demo to a temporary file next to out and renames
// it to out once complete; a failed demo leaves nothing behind.
func writeDemoFile(out string, r *teehist.Reader, h *teehist.Header, m *twmap.Map, opt replay.DemoOptions, stdout, stderr io.Writer) int {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	tmp := f.Name()
	res, err := replay.WriteDemo(f, r, h, m, opt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, out)
	}
	if err != nil {
		os.Remove(tmp)
		fmt.Fprintln(stderr, "twhist:", err)
		if errors.Is(err, replay.ErrDivergence) {
			return 1
		}
		return 2
	}
	if res.Replay.Truncated || !res.Replay.Finished && opt.To == 0 {
		fmt.Fprintf(stderr, "twhist: warning: the recording ends without FINISH (server killed or disk full); the demo ends at its last whole tick %d\n", res.LastTick)
	}
	fmt.Fprintf(stdout, "wrote %s: %d snapshots, ticks %d..%d (%.1f s), %d bytes\n", out, res.Snapshots,
		res.FirstTick, res.LastTick, float64(res.LastTick-res.FirstTick)/50, res.Bytes)
	return 0
}

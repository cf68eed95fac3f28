package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"twserver/teehist/index"
)

// ClipMargin is how much of the game a found event's demo command shows
// before and after the event, in ticks (5 s).
const ClipMargin = 5 * 50

// indexCmd is "twhist index [-mapdir DIR] DIR".
func indexCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mapDir := fs.String("mapdir", "", "directory holding the recordings' maps (NAME.map)")
	if code, ok := parseFileFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	dir := fs.Arg(0)
	db, err := index.Open(dir)
	if err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	defer db.Close()
	st, err := index.Update(context.Background(), db, dir, *mapDir)
	if err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	for _, f := range st.Failed {
		fmt.Fprintln(stderr, "twhist: not indexed:", f)
	}
	fmt.Fprintf(stdout, "indexed %d, unchanged %d, removed %d, still being recorded %d, failed %d (%s)\n", st.Indexed, st.Unchanged,
		st.Removed, st.InProgress, len(st.Failed), filepath.Join(dir, index.DBName))
	if len(st.Failed) > 0 {
		return 1
	}
	return 0
}

// parseDate reads -since/-until: RFC 3339, "2006-01-02 15:04" or a date (UTC).
func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q: want 2006-01-02, 2006-01-02 15:04 or RFC 3339", s)
}

// found is one line of "twhist find -json": the result and the demo command.
type found struct {
	index.Result
	Command string `json:"command"`
}

// shellQuote quotes s for a POSIX shell (names are the players' own). A
// string holding a control character (C0, DEL, C1) or bytes that are not
// UTF-8 is written as $'...' (POSIX.1-2024, bash, zsh, ksh) with those bytes
// as \xHH, so that printing the command sends none of them to the terminal
// and the shell still gets the exact string.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./@:") == "" {
		return s
	}
	if strings.IndexFunc(s, unprintable) < 0 {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case unprintable(r):
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// plain returns s as it is, or quoted (strconv.Quote) if it holds a control
// character or bytes that are not UTF-8: a recorded map name or game type.
func plain(s string) string {
	if strings.IndexFunc(s, unprintable) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// unprintable reports a control character (C0, DEL, C1) or a byte that is
// not UTF-8 (utf8.RuneError: U+FFFD itself is counted too, harmlessly).
func unprintable(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r == utf8.RuneError
}

// demoCommand is the twhist demo command line showing r.
func demoCommand(r *index.Result, dir, mapDir string) string {
	var b strings.Builder
	b.WriteString("twhist demo")
	if mapDir != "" {
		b.WriteString(" -mapdir " + shellQuote(mapDir))
	}
	if r.Player != "" {
		b.WriteString(" -pov " + shellQuote(r.Player))
	}
	out := r.GameUUID + "-replay" // not the server's own demo of the game, <game-uuid>.demo
	if r.Tick >= 0 {
		fmt.Fprintf(&b, " -from @%d -to @%d", max(r.Tick-ClipMargin, 0), r.Tick+ClipMargin)
		out = fmt.Sprintf("%s-%s-%d", r.GameUUID[:8], r.Event, r.Tick)
	}
	fmt.Fprintf(&b, " -o %s.demo %s", out, shellQuote(filepath.Join(dir, r.File)))
	return b.String()
}

// findCmd is "twhist find".
func findCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("find", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "recordings directory (indexed with twhist index)")
	mapDir := fs.String("mapdir", "", "map directory to put into the demo commands")
	var q index.Query
	fs.StringVar(&q.Player, "player", "", "a player's name (any name the player had)")
	fs.StringVar(&q.Map, "map", "", "map name")
	fs.StringVar(&q.Type, "type", "", "game type: dm, tdm, ctf, lms or lts")
	since := fs.String("since", "", "games started at or after")
	until := fs.String("until", "", "games started at or before")
	fs.StringVar(&q.Event, "event", "", "join, leave, kill, death or capture (default: games)")
	fs.StringVar(&q.Text, "text", "", "chat lines holding this text")
	asJSON := fs.Bool("json", false, "one JSON object per line")
	fs.IntVar(&q.Limit, "limit", 1000, "at most this many results")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	} else if err != nil {
		return usageError(stderr, "find: %v", err)
	}
	if fs.NArg() != 0 || *dir == "" {
		return usageError(stderr, "find takes -dir DIR and flags only")
	}
	var err error
	if *since != "" {
		if q.Since, err = parseDate(*since); err != nil {
			return usageError(stderr, "find: -since: %v", err)
		}
	}
	if *until != "" {
		if q.Until, err = parseDate(*until); err != nil {
			return usageError(stderr, "find: -until: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(*dir, index.DBName)); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "twhist: find: %s has no index yet: run twhist index %s first\n", *dir, *dir)
		return 2
	}
	db, err := index.Open(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	defer db.Close()
	res, err := index.Find(context.Background(), db, q)
	if err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	enc := json.NewEncoder(stdout)
	for i := range res {
		r := &res[i]
		cmd := demoCommand(r, *dir, *mapDir)
		if *asJSON {
			if err := enc.Encode(found{*r, cmd}); err != nil {
				fmt.Fprintln(stderr, "twhist:", err)
				return 2
			}
			continue
		}
		if err := findLine(stdout, r, cmd); err != nil {
			fmt.Fprintln(stderr, "twhist:", err)
			return 2
		}
	}
	return 0
}

// findLine prints result r of twhist find: its demo command, and a comment
// with the recorded strings quoted (names, lines) or plain (map, type).
func findLine(w io.Writer, r *index.Result, cmd string) error {
	var err error
	if r.Event == index.EventChat {
		_, err = fmt.Fprintf(w, "%s  # %s %s chat %q tick %d (%s): %q\n", cmd, r.Start.Format("2006-01-02 15:04"), plain(r.Map),
			r.Player, r.Tick, clock(r.Tick), r.Text)
	} else if r.Tick >= 0 {
		_, err = fmt.Fprintf(w, "%s  # %s %s %s %q tick %d (%s) %q\n", cmd, r.Start.Format("2006-01-02 15:04"), plain(r.Map), r.Event,
			r.Player, r.Tick, clock(r.Tick), r.Other)
	} else {
		_, err = fmt.Fprintf(w, "%s  # %s %s %s %.0f s, players %q", cmd, r.Start.Format("2006-01-02 15:04"), plain(r.Map), plain(r.Type),
			float64(r.Ticks)/50, r.Players)
		if err == nil && len(r.Bots) > 0 {
			_, err = fmt.Fprintf(w, ", bots %q", r.Bots)
		}
		if err == nil {
			_, err = fmt.Fprintln(w)
		}
	}
	return err
}

// clock formats a tick as m:ss from the game's start.
func clock(tick int32) string { return fmt.Sprintf("%d:%02d", tick/50/60, tick/50%60) }

package console

import (
	"bufio"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestSplitCommands(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"status", []string{"status"}},
		{"say a; say b", []string{"say a", " say b"}},
		{`say "a;b"; echo c`, []string{`say "a;b"`, " echo c"}},
		{`say "a#b" # comment; echo x`, []string{`say "a#b" `}},
		{`echo \"; echo y`, []string{`echo \"`, " echo y"}},
		{`echo "\";"; echo z`, []string{`echo "\";"`, " echo z"}},
		{`say "a\\"; echo z`, []string{`say "a\\"`, " echo z"}},
		{`say "a\\" # c; echo z`, []string{`say "a\\" `}},
		{`say "\\\\"; echo z`, []string{`say "\\\\"`, " echo z"}},
		{`say "a\"; echo z`, []string{`say "a\"; echo z`}},
		{`say "a\\\"; echo z`, []string{`say "a\\\"; echo z`}},
		{`echo a\\; echo b`, []string{`echo a\\`, " echo b"}},
		{";; ;", nil},
		{"# all comment", nil},
	} {
		if got := splitCommands(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("splitCommands(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestParseArgs(t *testing.T) {
	for _, tt := range []struct {
		rest, params string
		want         []string
		bad          bool
	}{
		{"3 being rude", "i[id] ?r[reason]", []string{"3", "being rude"}, false},
		{"3", "i[id] ?r[reason]", []string{"3"}, false},
		{"", "i[id] ?r[reason]", nil, true},
		{"  1.2.3.4   10  cheating  a lot  ", "s[id|ip|range] ?i[minutes] r[reason]", []string{"1.2.3.4", "10", "cheating  a lot"}, false},
		{"1.2.3.4", "s[id|ip|range] ?i[minutes] r[reason]", []string{"1.2.3.4"}, false},
		{`"My option" say "hi; there"`, "s[option] r[command]", []string{"My option", `say "hi; there"`}, false},
		{`"a \"q\" \\ b" x`, "s[option] r[command]", []string{`a "q" \ b`, "x"}, false},
		{`"unclosed x`, "s[option] r[command]", nil, true},
		{"only", "s[option] r[command]", []string{"only"}, true},
		{"yes", "r['yes'|'no']", []string{"yes"}, false},
		{"1 -1 3 extra", "i[id] i[team] ?i[delay]", []string{"1", "-1", "3"}, false},
		{"gravity 0.25", "s[tuning] i[value]", []string{"gravity", "0.25"}, false},
		{"", "", nil, false},
	} {
		got, err := parseArgs(tt.rest, tt.params)
		if (err != nil) != tt.bad || !tt.bad && !slices.Equal(got, tt.want) {
			t.Errorf("parseArgs(%q, %q) = %q, %v; want %q, bad=%v", tt.rest, tt.params, got, err, tt.want, tt.bad)
		}
	}
}

func TestCmdArgsNumbers(t *testing.T) {
	a := Args{"12abc", "-3", "x", " 7", "0.25", "1e2x", ".5"}
	for i, want := range []int{12, -3, 0, 7, 0, 1, 0} {
		if got := a.Int(i); got != want {
			t.Errorf("int(%q) = %d, want %d", a[i], got, want)
		}
	}
	for i, want := range map[int]float64{0: 12, 1: -3, 2: 0, 4: 0.25, 5: 100, 6: 0.5} {
		if got := a.Float(i); got != want {
			t.Errorf("float(%q) = %v, want %v", a[i], got, want)
		}
	}
	if a.Int(99) != 0 || a.Str(99) != "" {
		t.Error("absent argument not zero")
	}
}

// TestReferenceCommandsCovered: every console command of the reference
// server 0.7.5 (testdata/commands-0.7.5.txt) is implemented with the same
// parameters, or listed in UnsupportedCommands with a reason and in the
// list of unsupported commands in docs/configuration.md.
func TestReferenceCommandsCovered(t *testing.T) {
	f, err := os.Open("testdata/commands-0.7.5.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	readme, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	ref := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fs := strings.Split(line, "\t")
		if len(fs) != 3 {
			t.Fatalf("bad line %q", line)
		}
		name, params := fs[0], fs[1]
		ref[name] = true
		cmd, impl := lookupCommand(name)
		var unsup *UnsupportedCommand
		for i := range unsupported {
			if unsupported[i].Name == name {
				unsup = &unsupported[i]
			}
		}
		switch {
		case impl && unsup != nil:
			t.Errorf("%s is both implemented and listed as unsupported", name)
		case impl && cmd.Params != params:
			t.Errorf("%s: parameters %q, the reference's are %q", name, cmd.Params, params)
		case !impl && unsup == nil:
			t.Errorf("%s: neither implemented nor in UnsupportedCommands", name)
		case unsup != nil && (unsup.Reason == "" || !strings.Contains(string(readme), "| `"+name+"` |")):
			t.Errorf("%s: unsupported without a reason or a row in docs/configuration.md", name)
		}
	}
	if len(ref) < 37 {
		t.Fatalf("only %d reference commands read", len(ref))
	}
	for _, u := range unsupported {
		if !ref[u.Name] {
			t.Errorf("UnsupportedCommands lists %s, which the reference does not have", u.Name)
		}
	}
	for _, c := range commands {
		if len(c.Name) > 31 || len(c.Help) > 95 || len(c.Params) > 95 {
			t.Errorf("%s: longer than RCON_CMD_ADD carries", c.Name)
		}
		if _, err := parseArgs("", c.Params); err != nil && !strings.ContainsAny(c.Params, "sirf") {
			t.Errorf("%s: bad parameter string %q", c.Name, c.Params)
		}
	}
}

// FuzzConsoleLine: any line splits into commands that are pieces of it,
// and every parameter string of Commands parses any command's arguments
// into at most MaxCommandArgs arguments no longer than the line, without
// panicking; integer arguments read as the reference's atoi.
func FuzzConsoleLine(f *testing.F) {
	for _, s := range []string{"status", `say "a;b" # c`, `add_vote "x \" y" say hi; echo z`, "ban 1.2.3.4 -5 r",
		"set_team 1 -1 99999999999", `"unclosed`, `\\"`, "tune gravity 1e40", ";;#",
		`say "a\\"; echo z`, `say "a\"`, `a\`, `\\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		parts := splitCommands(line)
		total := 0
		for _, p := range parts {
			if !strings.Contains(line, p) {
				t.Fatalf("part %q not in %q", p, line)
			}
			total += len(p)
			name, rest := splitName(p)
			if len(name)+len(rest) > len(p) {
				t.Fatalf("name %q rest %q longer than %q", name, rest, p)
			}
			for _, c := range commands {
				args, _ := parseArgs(rest, c.Params)
				if len(args) > MaxCommandArgs {
					t.Fatalf("%d args", len(args))
				}
				for i, a := range args {
					if len(a) > len(rest) {
						t.Fatalf("arg %q longer than %q", a, rest)
					}
					if v := Args(args).Int(i); v < math.MinInt32 || v > math.MaxInt32 {
						t.Fatalf("int(%q) = %d", a, v)
					}
					_ = Args(args).Float(i)
				}
			}
		}
		if total > len(line) {
			t.Fatalf("parts longer than the line")
		}
		// The line as one quoted argument (\ and \" escaped) stays one
		// command and one argument, whatever it ends in.
		q := `say "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(line) + `"; echo z`
		if qp := splitCommands(q); len(qp) != 2 || qp[1] != " echo z" {
			t.Fatalf("splitCommands(%q) = %q, want the say and the echo", q, qp)
		} else if _, rest := splitName(qp[0]); !slices.Equal(must(parseArgs(rest, "r[text]")), []string{line}) {
			t.Fatalf("parseArgs(%q) = %q, want %q", rest, must(parseArgs(rest, "r[text]")), line)
		}
		if v, err := strconv.ParseInt(strings.TrimLeft(line, " \t\n\r\v\f"), 10, 32); err == nil {
			if got := (Args{line}).Int(0); int64(got) != v {
				t.Fatalf("int(%q) = %d, want %d", line, got, v)
			}
		}
	})
}

// must is a []string result whose error is dropped (the caller compares it).
func must(args []string, _ error) []string { return args }

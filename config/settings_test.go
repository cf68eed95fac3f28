package config

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"twserver/world/twmap"
)

// TestEveryRefSettingAccounted fails on a server setting of 0.7.5
// (testdata/settings-0.7.5.tsv) that twserver neither maps (an SvNames row
// whose default and range agree with the reference, or whose difference is
// written in Differences) nor lists in Unsupported with a reason.
func TestEveryRefSettingAccounted(t *testing.T) {
	if len(RefSettings()) < 60 {
		t.Fatalf("only %d reference settings read", len(RefSettings()))
	}
	for _, r := range RefSettings() {
		row, mapped := svRow(r.Name)
		u, unsup := unsupported(r.Name)
		switch {
		case mapped && unsup:
			t.Errorf("%s is both mapped (%s) and in Unsupported: keep one", r.Name, row.Key)
		case !mapped && !unsup:
			t.Errorf("%s (0.7.5 server setting) is neither in SvNames nor in Unsupported", r.Name)
		case unsup:
			if u.Reason == "" {
				t.Errorf("%s: Unsupported without a reason", r.Name)
			}
			if u.Same != "" && !r.Str {
				if n, ok := refInt(u.Same); !ok || r.clamp(n) != n {
					t.Errorf("%s: Same %q is not a value of %d..%d", r.Name, u.Same, r.Min, r.Max)
				}
			}
		default:
			if diffs := disagreements(r, row); len(diffs) > 0 && Differences[r.Name] == "" {
				t.Errorf("%s (%s) differs from the reference and Differences does not say how: %s", r.Name, row.Key, strings.Join(diffs, "; "))
			} else if len(diffs) > 0 {
				t.Logf("%s differs (documented): %s", r.Name, strings.Join(diffs, "; "))
			}
		}
	}
	for _, u := range Unsupported {
		if _, ok := refByName[u.Sv]; !ok {
			t.Errorf("Unsupported %s is no 0.7.5 server setting", u.Sv)
		}
	}
	for name := range Differences {
		if _, ok := svRow(name); !ok {
			t.Errorf("Differences %s: no SvNames row", name)
		}
	}
	for _, row := range SvNames {
		if _, ok := fieldByKey(&Config{}, row.Key); !ok && row.Sv != "add_vote" {
			t.Errorf("SvNames row %q names no configuration key", row.Key)
		}
	}
}

// disagreements applies the reference's default, its range ends and its
// longest string through the mapping and reports what twserver refuses or
// stores differently.
func disagreements(r RefSetting, row SvName) []string {
	var out []string
	apply := func(v string) (Config, error) {
		l := NewLoader()
		l.MapDirs = []string{}
		if _, err := l.setValue(row, v); err != nil {
			return Config{}, err
		}
		return l.Finish()
	}
	if c, err := apply(r.Default); err != nil {
		out = append(out, fmt.Sprintf("default %q refused: %v", r.Default, err))
	} else if !reflect.DeepEqual(c, Default()) {
		f, _ := fieldByKey(&c, row.Key)
		d, _ := fieldByKey(new(Default()), row.Key)
		out = append(out, fmt.Sprintf("default %q gives %v, twserver's default is %v", r.Default, f.Interface(), d.Interface()))
	}
	var vals []string
	if r.Str {
		vals = append(vals, strings.Repeat("a", r.Size-1))
	} else if r.Min != r.Max {
		vals = append(vals, strconv.Itoa(r.Min))
		if r.Max != 0 {
			vals = append(vals, strconv.Itoa(r.Max))
		}
	}
	for _, v := range vals {
		c, err := apply(v)
		if err != nil {
			out = append(out, fmt.Sprintf("%.20q refused: %.100v", v, err))
			continue
		}
		f, _ := fieldByKey(&c, row.Key)
		if _, conv := converters[r.Name]; conv {
			continue // stored differently by design (Differences says how)
		}
		if f.Kind() == reflect.String && f.String() != v {
			out = append(out, fmt.Sprintf("%.20q stored as %.20q", v, f.String()))
		}
		if f.Kind() == reflect.Int && strconv.Itoa(int(f.Int())) != v {
			out = append(out, fmt.Sprintf("%s stored as %d", v, f.Int()))
		}
	}
	return out
}

func TestDefaultMapName(t *testing.T) {
	if twmap.Default().Name != DefaultMapName {
		t.Errorf("DefaultMapName %q, embedded map %q", DefaultMapName, twmap.Default().Name)
	}
}

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated tables of docs/configuration.md")

// TestDocTables checks that the settings tables of docs/configuration.md
// are the ones SvNames, Differences and Unsupported make (go test ./config
// -run TestDocTables -update-docs rewrites them).
func TestDocTables(t *testing.T) {
	const path = "../docs/configuration.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, tbl := range []struct{ name, body string }{
		{"keys", SvNamesMarkdown()},
		{"reference settings", SettingsMarkdown()},
	} {
		begin := "<!-- generated: " + tbl.name + " (go test ./config -run TestDocTables -update-docs) -->\n"
		end := "<!-- end: " + tbl.name + " -->"
		i := strings.Index(text, begin)
		j := strings.Index(text, end)
		if i < 0 || j < i {
			t.Errorf("docs/configuration.md lacks the %q table between %q and %q", tbl.name, begin, end)
			continue
		}
		if got := text[i+len(begin) : j]; got != tbl.body {
			if *updateDocs {
				text = text[:i+len(begin)] + tbl.body + text[j:]
				continue
			}
			t.Errorf("docs/configuration.md's %s table is not the one the code makes; run go test ./config -run TestDocTables -update-docs", tbl.name)
		}
	}
	if *updateDocs && text != string(data) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package mapstore

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"twserver/config"
	"twserver/mapdl"
	"twserver/world/twmap"
)

// mapDir makes a directory with copies of the test map under names, and
// a file that is not a map.
func mapDir(t *testing.T, names ...string) string {
	t.Helper()
	data, err := os.ReadFile("../world/twmap/testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n+".map"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestByName: the default map by its name, a map of map.dir or of
// map.file's directory, and the refusals.
func TestByName(t *testing.T) {
	dir := mapDir(t, "alpha", "beta")
	def := twmap.Default().Name
	for _, tc := range []struct {
		name string
		mc   config.MapConfig
		req  string
		want string // map name, or the start of the error
	}{
		{"default", config.MapConfig{}, def, def},
		{"in map.dir", config.MapConfig{Dir: dir}, "beta", "beta"},
		{"beside map.file", config.MapConfig{File: filepath.Join(dir, "alpha.map")}, "beta", "beta"},
		{"no directory", config.MapConfig{}, "beta", `map "beta" not found (no map directory configured: map.dir names the directory of beta.map)`},
		{"missing", config.MapConfig{Dir: dir}, "gamma", "stat "},
		{"invalid name", config.MapConfig{Dir: dir}, "../alpha", "invalid map name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ByName(tc.mc, tc.req)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = m.Name
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("ByName(%q) = %q, want %q", tc.req, got, tc.want)
			}
		})
	}
}

// TestByConfig: map.file first, then the rotation's first map, then
// map.dir's first, else the default.
func TestByConfig(t *testing.T) {
	dir := mapDir(t, "alpha", "beta")
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		mc   config.MapConfig
		want string
	}{
		{"file", config.MapConfig{File: filepath.Join(dir, "beta.map"), Dir: dir, Rotation: []string{"alpha"}}, "beta"},
		{"rotation", config.MapConfig{Dir: dir, Rotation: []string{"beta", "alpha"}}, "beta"},
		{"dir", config.MapConfig{Dir: dir}, "alpha"},
		{"default", config.MapConfig{}, twmap.Default().Name},
		{"empty dir", config.MapConfig{Dir: empty}, "map.dir " + empty + ": no .map files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ByConfig(tc.mc)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = m.Name
			}
			if got != tc.want {
				t.Errorf("ByConfig = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNext: the rotation wraps, a map outside it is followed by its
// first, map.dir stands in for an empty rotation, and without either the
// map stays.
func TestNext(t *testing.T) {
	dir := mapDir(t, "alpha", "beta")
	rot := config.MapConfig{Rotation: []string{"a", "b", "c"}}
	for _, tc := range []struct {
		mc        config.MapConfig
		cur, want string
	}{
		{rot, "a", "b"},
		{rot, "c", "a"},
		{rot, "x", "a"},
		{config.MapConfig{Dir: dir}, "alpha", "beta"},
		{config.MapConfig{Dir: dir}, "beta", "alpha"},
		{config.MapConfig{}, "x", "x"},
		{config.MapConfig{Dir: t.TempDir()}, "x", "x"},
	} {
		if got := Next(tc.mc, tc.cur); got != tc.want {
			t.Errorf("Next(%+v, %q) = %q, want %q", tc.mc, tc.cur, got, tc.want)
		}
	}
}

// TestList: the .map files only, without the suffix; an error for "".
func TestList(t *testing.T) {
	names, err := List(mapDir(t, "beta", "alpha"))
	slices.Sort(names)
	if err != nil || !slices.Equal(names, []string{"alpha", "beta"}) {
		t.Fatalf("List = %v, %v", names, err)
	}
	if _, err := List(""); err == nil {
		t.Fatal("List(\"\") without an error")
	}
}

// TestShared: a file loaded twice is one map until it changes; a map's
// 0.6 variant is derived once; a file over MaxFileSize is refused.
func TestShared(t *testing.T) {
	dir := mapDir(t, "alpha")
	path := filepath.Join(dir, "alpha.map")
	a, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadFile(path)
	if err != nil || a != b {
		t.Fatalf("second load: %p %v, first %p", b, err, a)
	}
	later := mapDir(t, "alpha") // the same content, another file
	if c, err := LoadFile(filepath.Join(later, "alpha.map")); err != nil || c == a {
		t.Fatalf("another file: %p %v, first %p", c, err, a)
	}
	derived := 0
	derive := func(m *twmap.Map) mapdl.Variant6 {
		derived++
		v, err := mapdl.Derive6(m)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v := Variant6(a, derive)
	if w := Variant6(a, derive); w != v || derived != 1 || v.Name != "alpha" {
		t.Fatalf("variants %p %p (%q), derived %d times", v, w, v.Name, derived)
	}
	big := filepath.Join(dir, "big.map")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(big); err == nil || !strings.Contains(err.Error(), "map larger than") {
		t.Fatalf("a map over MaxFileSize: %v", err)
	}
}

package replay

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"twserver/world/twmap"
)

// TestLoadMap: a recorded map name loads NAME.map from the map directory,
// and no name or symbolic link reaches secret.map beside the directory
// (which loads when asked for where it is: the positive control).
func TestLoadMap(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "maps")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := twmap.Default().Data
	for _, p := range []string{filepath.Join(top, "secret.map"), filepath.Join(dir, "legit.map")} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../secret.map", filepath.Join(dir, "link.map")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.map"), 0o755); err != nil {
		t.Fatal(err)
	}
	if m, err := LoadMap(dir, "legit"); err != nil || m.Name != "legit" {
		t.Fatalf("legit: %v", err)
	}
	if m, err := LoadMap(top, "secret"); err != nil || m.Name != "secret" {
		t.Fatalf("the secret map where it is: %v", err)
	}
	if m, err := LoadMap(dir, twmap.Default().Name); err != nil || m != twmap.Default() {
		t.Fatalf("the embedded map: %v", err)
	}
	for _, name := range []string{"../secret", "..", filepath.Join(top, "secret"), "a/../../secret", `..\secret`, "x\x00", "", "link", "sub", "missing"} {
		m, err := LoadMap(dir, name)
		if err == nil {
			t.Errorf("%q loaded %s", name, m.Name)
		}
		if name == "../secret" && !errors.Is(err, ErrMapName) {
			t.Errorf("%q: %v, want ErrMapName", name, err)
		}
	}
}

package mapstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"twserver/config"
	"twserver/world/twmap"
)

// MaxFileSize bounds the size of a map file the server loads.
const MaxFileSize = 32 << 20

// ByConfig loads map.file, the first map of map.dir's rotation, or the
// first map of map.dir; with neither, the embedded default map.
func ByConfig(mc config.MapConfig) (*twmap.Map, error) {
	switch {
	case mc.File != "":
		return LoadFile(mc.File)
	case mc.Dir != "" && len(mc.Rotation) > 0:
		return LoadFile(filepath.Join(mc.Dir, mc.Rotation[0]+".map"))
	case mc.Dir != "":
		names, err := List(mc.Dir)
		if err != nil {
			return nil, err
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("map.dir %s: no .map files", mc.Dir)
		}
		return LoadFile(filepath.Join(mc.Dir, names[0]+".map"))
	}
	return twmap.Default(), nil
}

// ByName finds a map by name: the embedded default, map.dir, or the
// directory of map.file.
func ByName(mc config.MapConfig, name string) (*twmap.Map, error) {
	if !twmap.ValidName(name) {
		return nil, fmt.Errorf("invalid map name %q", name)
	}
	if d := twmap.Default(); d.Name == name {
		return d, nil
	}
	dir := mc.Dir
	if dir == "" && mc.File != "" {
		dir = filepath.Dir(mc.File)
	}
	if dir == "" {
		return nil, fmt.Errorf("map %q not found (no map directory configured: map.dir names the directory of %s.map)", name, name)
	}
	return LoadFile(filepath.Join(dir, name+".map"))
}

// LoadFile loads the map file at path, named after the file, or returns
// the map a game of this process loaded from it if the file has not
// changed since.
func LoadFile(path string) (*twmap.Map, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: map larger than %d bytes", path, MaxFileSize)
	}
	return cachedFile(path, st, func() (*twmap.Map, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(path), ".map")
		m, err := twmap.Load(name, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return m, nil
	})
}

// List returns the names (without .map) of the map files in dir, in
// directory order; an error for a dir that cannot be read (or "").
func List(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".map"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	return names, nil
}

// Next returns the map after current in map.rotation (or in map.dir),
// the first one when current is in neither, or current when there is no
// rotation.
func Next(mc config.MapConfig, current string) string {
	names := mc.Rotation
	if len(names) == 0 && mc.Dir != "" {
		names, _ = List(mc.Dir)
	}
	if len(names) == 0 {
		return current
	}
	for i, n := range names {
		if n == current {
			return names[(i+1)%len(names)]
		}
	}
	return names[0]
}

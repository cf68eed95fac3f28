package replay

import (
	"errors"
	"fmt"
	"io"
	"os"

	"twserver/world/twmap"
)

// MaxMapFileSize bounds the map file LoadMap reads, in bytes (the server's
// bound, mapstore.MaxFileSize).
const MaxMapFileSize = 32 << 20

// ErrMapName is returned by LoadMap for a map name that is not a plain file
// name (a separator, "..", an absolute path, a control character): a
// recording's header cannot name a file outside the map directory.
var ErrMapName = errors.New("replay: map name is not a plain name")

// LoadMap returns the map called name (a recording's Header.MapName) from
// directory dir, the file NAME.map, opened through os.OpenRoot so that
// neither the name nor a symbolic link leaves dir; the file must be a
// regular file of at most MaxMapFileSize bytes. Without dir, or when dir
// holds no such file, it returns the embedded map if that is called name.
func LoadMap(dir, name string) (*twmap.Map, error) {
	if !twmap.ValidName(name) {
		return nil, fmt.Errorf("%w: %q", ErrMapName, name)
	}
	if dir != "" {
		m, err := loadIn(dir, name)
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			return m, err
		}
	}
	if d := twmap.Default(); d.Name == name {
		return d, nil
	}
	if dir == "" {
		return nil, fmt.Errorf("map %q is not the embedded map (give the map directory)", name)
	}
	return nil, fmt.Errorf("map %q: no %s.map in %s and not the embedded map", name, name, dir)
}

// loadIn reads NAME.map inside dir.
func loadIn(dir, name string) (*twmap.Map, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	file := name + ".map"
	// look before opening: opening a FIFO would wait for a writer
	if fi, err := root.Stat(file); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("map %s in %s is not a regular file", file, dir)
	}
	f, err := root.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxMapFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxMapFileSize {
		return nil, fmt.Errorf("map %s in %s: larger than %d bytes", file, dir, MaxMapFileSize)
	}
	return twmap.Load(name, data)
}

package watch

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"twserver/teehist"
	"twserver/world/twmap"
)

// MaxNameLen bounds a recording's file name.
const MaxNameLen = 128

// Suffix is the file name suffix of the recordings the viewer shows.
const Suffix = ".teehistorian"

// ErrBadName is CheckName's error.
var ErrBadName = errors.New("watch: not a recording's name")

// CheckName accepts the name of a teehistorian as the recorder names it:
// letters, digits, '-', '_' and '.', not starting with '.', ending in
// Suffix, at most MaxNameLen bytes.
func CheckName(name string) error { return CheckFile(name, Suffix) }

// CheckFile accepts the name of a recording with suffix as the recorder
// names its files (the rule of CheckName, for demos too).
func CheckFile(name, suffix string) error {
	if name == "" || len(name) > MaxNameLen || name[0] == '.' || !strings.HasSuffix(name, suffix) || len(name) == len(suffix) {
		return ErrBadName
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return ErrBadName
		}
	}
	return nil
}

// DirSource is a Source of the plain files of one directory (no symbolic
// link, nothing outside it), whose maps are the embedded map or
// MapDir/NAME.map.
type DirSource struct {
	Dir    string
	MapDir string
}

// Open implements Source.
func (d DirSource) Open(name string) (io.ReadCloser, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(d.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if li, err := root.Lstat(name); err != nil || !li.Mode().IsRegular() {
		return nil, fs.ErrNotExist
	}
	return root.Open(name)
}

// Map implements Source.
func (d DirSource) Map(h *teehist.Header) (*twmap.Map, error) {
	if m := twmap.Default(); m.SHA256 == h.MapSHA256 {
		if m.Name == h.MapName {
			return m, nil
		}
		return twmap.Load(h.MapName, twmap.DefaultData()) // the embedded map under another name
	}
	if d.MapDir == "" || h.MapName == "" || strings.ContainsAny(h.MapName, `/\`) || h.MapName[0] == '.' {
		return nil, errors.New("watch: the recording's map is not available")
	}
	data, err := os.ReadFile(filepath.Join(d.MapDir, h.MapName+".map"))
	if err != nil {
		return nil, err
	}
	return twmap.Load(h.MapName, data)
}

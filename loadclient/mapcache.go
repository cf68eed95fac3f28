package loadclient

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// MaxMapSize bounds the map a load client accepts to download (bytes). The
// standard maps are 10-100 KiB; this leaves room for large custom maps while
// keeping a misbehaving server from making 63 clients allocate gigabytes.
const MaxMapSize = 16 << 20

// MapKey identifies one version of a map, as MAP_CHANGE announces it.
type MapKey struct {
	Name   string
	CRC    uint32
	Size   int
	SHA256 [32]byte
}

// FileName is the cache file name of the map: name_sha256hex.map.
func (k MapKey) FileName() string {
	return k.Name + "_" + hex.EncodeToString(k.SHA256[:]) + ".map"
}

// MapCache holds maps the load clients already have, shared by all clients
// of a run, optionally backed by a directory. Safe for concurrent use.
type MapCache struct {
	// Dir, when not empty, is read for maps missing from memory and receives
	// every downloaded map.
	Dir string

	mu   sync.Mutex
	maps map[MapKey][]byte
}

// Has reports whether the cache holds the map (in memory or in Dir).
func (c *MapCache) Has(k MapKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.maps[k]; ok {
		return true
	}
	if c.Dir == "" || !validName(k.Name) {
		return false
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, k.FileName()))
	if err != nil || VerifyMap(k, data) != nil {
		return false
	}
	c.put(k, data)
	return true
}

// Len returns the number of maps held in memory.
func (c *MapCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.maps)
}

func (c *MapCache) put(k MapKey, data []byte) {
	if c.maps == nil {
		c.maps = make(map[MapKey][]byte)
	}
	c.maps[k] = data
}

// Store verifies data against k and keeps it (and writes it to Dir).
func (c *MapCache) Store(k MapKey, data []byte) error {
	if err := VerifyMap(k, data); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(k, data)
	if c.Dir != "" && validName(k.Name) {
		if err := os.MkdirAll(c.Dir, 0o755); err != nil {
			return err
		}
		tmp := filepath.Join(c.Dir, k.FileName()+".tmp")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, filepath.Join(c.Dir, k.FileName()))
	}
	return nil
}

// Map verification errors.
var (
	ErrMapSize   = errors.New("map size differs from MAP_CHANGE")
	ErrMapCRC    = errors.New("map crc differs from MAP_CHANGE")
	ErrMapSHA256 = errors.New("map sha256 differs from MAP_CHANGE")
)

// VerifyMap checks data against the size, CRC-32 and SHA-256 of k (net.md A3.4).
func VerifyMap(k MapKey, data []byte) error {
	if len(data) != k.Size {
		return ErrMapSize
	}
	if crc32.ChecksumIEEE(data) != k.CRC {
		return ErrMapCRC
	}
	if sha256.Sum256(data) != k.SHA256 {
		return ErrMapSHA256
	}
	return nil
}

// validName refuses map names the 0.7 client refuses (path separators) and
// anything else that could escape the cache directory.
func validName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, "/\\\x00")
}

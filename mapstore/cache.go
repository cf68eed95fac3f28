package mapstore

import (
	"os"
	"sync"
	"time"
	"weak"

	"twserver/mapdl"
	"twserver/world/twmap"
)

// Maps shared between the games of a process. Games that load the same map
// file share one loaded *twmap.Map (its file bytes, game layer and
// entities, read-only once loaded), and games on the same map share one
// 0.6 variant, which is derived only when a 0.6 client first asks for the
// map: a process whose games never see a 0.6 client never holds one. Both
// caches hold weak pointers, so a map no game uses any more is collected.

// mapFileKey identifies a map file's content well enough to reuse a load:
// its path, size and modification time.
type mapFileKey struct {
	path  string
	size  int64
	mtime time.Time
}

var (
	mapCacheMu sync.Mutex
	mapFiles   = map[mapFileKey]weak.Pointer[twmap.Map]{}
	map6Cache  = map[map6Key]weak.Pointer[mapdl.Variant6]{}
)

// map6Key identifies a map for its 0.6 variant: content and name (the
// variant is sent under the map's name).
type map6Key struct {
	sha  [32]byte
	name string
}

// cachedFile returns the map loaded from path by this process's games
// if the file has not changed since, else loads it with load.
func cachedFile(path string, st os.FileInfo, load func() (*twmap.Map, error)) (*twmap.Map, error) {
	key := mapFileKey{path: path, size: st.Size(), mtime: st.ModTime()}
	mapCacheMu.Lock()
	defer mapCacheMu.Unlock()
	if m := mapFiles[key].Value(); m != nil {
		return m, nil
	}
	m, err := load()
	if err != nil {
		return nil, err
	}
	for k, wp := range mapFiles { // drop the entries of collected maps
		if wp.Value() == nil {
			delete(mapFiles, k)
		}
	}
	mapFiles[key] = weak.Make(m)
	return m, nil
}

// Variant6 returns the 0.6 variant of m, derived by derive unless a game
// of this process has it already. Deriving takes a few milliseconds of the
// calling loop (once per map and process).
func Variant6(m *twmap.Map, derive func(*twmap.Map) mapdl.Variant6) *mapdl.Variant6 {
	mapCacheMu.Lock()
	defer mapCacheMu.Unlock()
	key := map6Key{m.SHA256, m.Name}
	if v := map6Cache[key].Value(); v != nil {
		return v
	}
	v := new(mapdl.Variant6)
	*v = derive(m)
	for k, wp := range map6Cache {
		if wp.Value() == nil {
			delete(map6Cache, k)
		}
	}
	map6Cache[key] = weak.Make(v)
	return v
}

package bigmap

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"twserver/netproto"
	"twserver/world/twmap"
)

// TestGenerate: the map loads, is about 2 MB, has the arena's spawn points
// and comes out byte-identical twice.
func TestGenerate(t *testing.T) {
	a, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate()
	if !bytes.Equal(a, b) {
		t.Fatal("two runs gave different bytes")
	}
	if len(a) < 2_000_000 || len(a) > 2_300_000 {
		t.Fatalf("%d bytes, want about 2 MB", len(a))
	}
	m, err := twmap.Load(Name, a)
	if err != nil {
		t.Fatal(err)
	}
	spawns := m.CountEntities()
	def := twmap.Default().CountEntities()
	if spawns != def {
		t.Errorf("entities %v, want the default map's %v", spawns, def)
	}
	t.Logf("%d bytes, %d map chunks, sha256 %x", len(a), (len(a)+netproto.MapChunkSize-1)/netproto.MapChunkSize, sha256.Sum256(a))
}

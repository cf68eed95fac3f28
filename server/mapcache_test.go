package server

import (
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/sockio"
)

// TestMapShared: games of one process loading the same map file share the
// loaded map, derive no 0.6 variant until a 0.6 client asks, and then share
// one variant.
func TestMapShared(t *testing.T) {
	dm1, err := filepath.Abs("../world/twmap/testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	var games [2]*Server
	for i := range games {
		cfg := config.Default()
		cfg.Map.File = dm1
		mc, err := sockio.NewMemNet().Listen(srvAddr)
		if err != nil {
			t.Fatal(err)
		}
		if games[i], err = New(Options{Config: cfg, Conn: mc, Logger: zerolog.Nop(), Seed: 1}); err != nil {
			t.Fatal(err)
		}
	}
	a, b := games[0], games[1]
	if a.curMap != b.curMap {
		t.Fatal("two games on the same map file hold two copies of it")
	}
	if a.curMap6 != nil || b.curMap6 != nil {
		t.Fatal("0.6 variant derived before any 0.6 client asked")
	}
	v := a.map6()
	if v.Name != "dm1" || v.Size == 0 || v.CRC == a.curMap.CRC {
		t.Fatalf("0.6 variant %q size %d crc %08x (the 0.7 map's %08x)", v.Name, v.Size, v.CRC, a.curMap.CRC)
	}
	if b.map6() != v {
		t.Fatal("two games on the same map derived two 0.6 variants")
	}
}

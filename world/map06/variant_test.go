package map06

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"twserver/internal/testenv"
	"twserver/world/map06/internal/cells"
	"twserver/world/twmap"
)

// Where the Debian/Ubuntu teeworlds-data package installs the stock maps
// and images.
const (
	systemMaps   = "/usr/share/games/teeworlds/data/maps"
	systemMapres = "/usr/share/games/teeworlds/data/mapres"
)

var systemPNGs sync.Map // name -> func() *image.NRGBA

// systemStock decodes a 0.7.5 image from the installed teeworlds-data (not
// from this package's embedded copy), or returns nil pixels when absent.
func systemStock(name string) (w, h int, px []byte) {
	f, _ := systemPNGs.LoadOrStore(name, sync.OnceValue(func() *image.NRGBA {
		img, err := cells.Load(filepath.Join(systemMapres, name+".png"))
		if err != nil {
			return nil
		}
		return img
	}))
	img := f.(func() *image.NRGBA)()
	if img == nil {
		return 0, 0, nil
	}
	return img.Rect.Dx(), img.Rect.Dy(), img.Pix
}

// checkVariant derives m's variant and checks it from every side: a 0.6
// reading of every layer, image and envelope against the 0.7 reading of m,
// identity fields, determinism, and that our own loader reads the same game
// layer from it.
func checkVariant(t *testing.T, m *twmap.Map) *Variant {
	t.Helper()
	v, err := Derive(m)
	if err != nil {
		t.Fatal(err)
	}
	if v.Size != len(v.Data) || v.CRC != crc32.ChecksumIEEE(v.Data) || v.SHA256 != sha256.Sum256(v.Data) {
		t.Fatalf("identity fields do not match the data: size %d/%d", v.Size, len(v.Data))
	}
	if v.Same != (&v.Data[0] == &m.Data[0]) {
		t.Fatalf("Same=%v but the data is %s", v.Same, map[bool]string{true: "shared", false: "a new file"}[&v.Data[0] == &m.Data[0]])
	}
	view, err := read06(v.Data)
	if err != nil {
		t.Fatalf("0.6 reading of the variant: %v", err)
	}
	if err := compare06(m, view, systemStock); err != nil {
		t.Fatalf("0.6 reading differs from the 0.7 reading: %v", err)
	}
	again, err := Derive(m)
	if err != nil || !bytes.Equal(again.Data, v.Data) || !slices.Equal(again.Embedded, v.Embedded) {
		t.Fatalf("second derivation differs (err %v)", err)
	}
	back, err := twmap.Load("v06_"+m.Name, v.Data)
	if err != nil {
		t.Fatalf("variant does not load: %v", err)
	}
	if !bytes.Equal(back.Game, m.Game) || !bytes.Equal(back.GameFlags, m.GameFlags) || !slices.Equal(back.Entities, m.Entities) {
		t.Fatal("variant's game layer differs")
	}
	return v
}

// The identity of dm1's 0.6 variant (TestDM1), recorded from Derive.
const (
	dm1VariantCRC    = 0xc050a36d
	dm1VariantSize   = 375379
	dm1VariantSHA256 = "088c299c5e3b87f8e233fcf92bf7f782bc3f5ad45517b43aa4b9c744117536f1"
)

// TestDM1 checks the real dm1: version-4 tiles in every layer, 0.7
// envelopes with 22-word points, and grass tilesets whose 0.6 copies lack
// tiles dm1 draws, so both are embedded from the 0.7.5 images.
func TestDM1(t *testing.T) {
	b, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	m, err := twmap.Load("dm1", b)
	if err != nil {
		t.Fatal(err)
	}
	v := checkVariant(t, m)
	if v.Same || !slices.Equal(v.Embedded, []string{"grass_doodads", "grass_main"}) {
		t.Errorf("same %v, embedded %v", v.Same, v.Embedded)
	}
	// A determinism golden (our own output, not a reference capture): the
	// variant is a pure function of the map bytes, on every platform and
	// Go version (our own deflate encoder). The clients check CRC and
	// size; DDNet clients also the SHA-256.
	if got := hex.EncodeToString(v.SHA256[:]); v.CRC != dm1VariantCRC || v.Size != dm1VariantSize || got != dm1VariantSHA256 {
		t.Errorf("variant crc %08x size %d sha256 %s; want %08x, %d, %s", v.CRC, v.Size, got, dm1VariantCRC, dm1VariantSize, dm1VariantSHA256)
	}
	f := m.File()
	envs := f.ItemsOfType(twmap.ItemTypeEnvelope)
	if v0, _ := envs[0].Int(0); v0 != 3 {
		t.Fatalf("fixture envelope version %d, want 3 (bezier points)", v0)
	}
	view, _ := read06(v.Data)
	for _, e := range view.envs {
		if e.version != 2 {
			t.Errorf("envelope version %d in the variant", e.version)
		}
	}
	for k, l := range m.Layers {
		if l.Tiles != nil && (l.Tiles.Version != 4 || view.layers[k].version != 3) {
			t.Errorf("layer %d: tilemap version %d -> %d", k, l.Tiles.Version, view.layers[k].version)
		}
	}
}

// TestSystemMaps derives the 0.6 variant of every stock map the
// teeworlds-data package installs and checks each one.
func TestSystemMaps(t *testing.T) {
	paths := testenv.Glob(t, filepath.Join(systemMaps, "*.map"), "teeworlds-data")
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".map")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			m, err := twmap.Load("stock_"+name, b)
			if err != nil {
				t.Fatal(err)
			}
			v4 := false
			for _, l := range m.Layers {
				v4 = v4 || (l.Tiles != nil && l.Tiles.Version > 3)
			}
			v := checkVariant(t, m)
			if v4 && v.Same {
				t.Error("map with version-4 tiles served unchanged")
			}
			t.Logf("%s: %d -> %d bytes, same %v, embedded %v, crc %08x", name, m.Size, v.Size, v.Same, v.Embedded, v.CRC)
		})
	}
}

// TestDefaultMap: the embedded default map already has raw tiles and
// stock images 0.6 clients ship with the tiles it draws; only its image
// items (0.7 version 2 with a format word) change.
func TestDefaultMap(t *testing.T) {
	m := twmap.Default()
	v := checkVariant(t, m)
	if v.Same || len(v.Embedded) != 0 {
		t.Errorf("same %v, embedded %v", v.Same, v.Embedded)
	}
	if v.Size > 2*m.Size {
		t.Errorf("variant of the default map is %d bytes, the map %d", v.Size, m.Size)
	}
}

// TestStockTable checks the generated table against the images installed
// here: every image with an incompatible cell is embedded, and every cell
// where the DDNet 16.4 copy (Debian ddnet-data) shows something else than
// the 0.7.5 image (teeworlds-data) is marked. The vanilla 0.6.5 copies the
// table also covers are not packaged.
func TestStockTable(t *testing.T) {
	for name, bad := range stockIncompatible {
		if bad != ([4]uint64{}) {
			if _, err := loadStock(name); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	const ddnetMapres = "/usr/share/games/ddnet/data/mapres"
	testenv.Stat(t, ddnetMapres, "ddnet-data")
	checked := 0
	for name, bad := range stockIncompatible {
		a, err := cells.Load(filepath.Join(systemMapres, name+".png"))
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		b, err := cells.Load(filepath.Join(ddnetMapres, name+".png"))
		if err != nil {
			if bad != [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)} {
				t.Errorf("%s: DDNet lacks it but the table marks only some cells", name)
			}
			continue
		}
		for c := range 256 {
			if cells.Differs(a, b, c) && bad[c/64]&(1<<(c%64)) == 0 {
				t.Errorf("%s cell %d: the DDNet copy differs but the table calls it compatible", name, c)
			}
			checked++
		}
	}
	if checked == 0 {
		testenv.Require(t, "the 0.7.5 images in "+systemMapres+" (Debian package teeworlds-data)", errors.New("none could be read"))
	}
	t.Logf("checked %d cells against the DDNet 16.4 images", checked)
}

func BenchmarkDeriveDM1(b *testing.B) {
	data, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		b.Fatal(err)
	}
	m, err := twmap.Load("dm1", data)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Derive(m); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRead06RejectsOriginal: the 0.6 reading used above refuses the
// original 0.7 dm1 (version-4 tiles, 0.7 image and envelope items), so the
// checks of the variants can fail.
func TestRead06RejectsOriginal(t *testing.T) {
	b, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := read06(b); err == nil || !strings.Contains(err.Error(), "version") {
		t.Fatalf("read06 of the 0.7 dm1: %v", err)
	}
}

// TestConcurrentDerive: servers may derive variants of several maps (or the
// same one) at once; results are identical. Run with -race.
func TestConcurrentDerive(t *testing.T) {
	b, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	m, err := twmap.Load("dm1", b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Derive(m)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			v, err := Derive(m)
			if err == nil && !bytes.Equal(v.Data, want.Data) {
				err = errors.New("different bytes")
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

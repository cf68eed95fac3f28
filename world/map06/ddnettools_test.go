package map06

import (
	"bytes"
	"errors"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"twserver/internal/testenv"
	"twserver/world/twmap"
)

// ddnetTools is where the Debian ddnet-tools package (16.4) installs DDNet's
// map tools. They read maps with DDNet's own datafile reader and map item
// structs, as the DDNet 16.4 client does.
const ddnetTools = "/usr/lib/x86_64-linux-gnu/ddnet"

// toolMaps returns the maps the tool tests run on: the dm1 fixture, the
// embedded default map and every installed stock map.
func toolMaps(t *testing.T) []*twmap.Map {
	t.Helper()
	b, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	dm1, err := twmap.Load("dm1", b)
	if err != nil {
		t.Fatal(err)
	}
	maps := []*twmap.Map{dm1, twmap.Default()}
	paths, _ := filepath.Glob(filepath.Join(systemMaps, "*.map"))
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".map")
		if name == "dm1" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := twmap.Load("stock_"+name, b)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, m)
	}
	if len(paths) == 0 {
		testenv.Partly(t, "the stock maps in "+systemMaps+" (Debian package teeworlds-data)", errors.New("none found; the tools ran on dm1 and the default map only"))
	}
	return maps
}

func needTool(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(ddnetTools, name)
	testenv.Stat(t, p, "ddnet-tools")
	return p
}

// runTool runs a DDNet tool in dir with HOME inside dir and returns its
// output; a non-zero exit fails the test.
func runTool(t *testing.T, dir, tool string, args ...string) string {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(tool), args, err, out)
	}
	return string(out)
}

func writeVariant(t *testing.T, dir string, m *twmap.Map) (*Variant, string) {
	t.Helper()
	v, err := Derive(m)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, m.Name+"_06.map")
	if err := os.WriteFile(p, v.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return v, p
}

// TestDDNetConvertRoundTrip: DDNet's map_convert_07 reads the 0.6 variant
// (raw tiles, as DDNet 16.4 reads every tile layer) and writes it back as a
// 0.7 map; every tile of that map, read by our 0.7 loader, equals the tile
// the 0.7 client reads from the original. The tool also refuses tile
// images whose size is not a multiple of 16, so its exit status checks the
// embedded images too.
func TestDDNetConvertRoundTrip(t *testing.T) {
	tool := needTool(t, "map_convert_07")
	for _, m := range toolMaps(t) {
		t.Run(m.Name, func(t *testing.T) {
			dir := t.TempDir() // no data/mapres here: external images stay external
			_, p := writeVariant(t, dir, m)
			runTool(t, dir, tool, p, filepath.Join(dir, "back07.map"))
			b, err := os.ReadFile(filepath.Join(dir, "back07.map"))
			if err != nil {
				t.Fatal(err)
			}
			back, err := twmap.Load("back_"+m.Name, b)
			if err != nil {
				t.Fatalf("map_convert_07 output does not load: %v", err)
			}
			for k, l := range m.Layers {
				if l.Tiles == nil {
					continue
				}
				want, err := m.LayerTiles(k)
				if err != nil {
					t.Fatal(err)
				}
				got, err := back.LayerTiles(k)
				if err != nil {
					t.Fatalf("layer %d after the round trip: %v", k, err)
				}
				for i := range want {
					w, g := want[i], got[i]
					if g.Index != w.Index || g.Flags != w.Flags {
						t.Fatalf("layer %d tile %d: DDNet read %+v, the 0.7 client reads %+v", k, i, g, w)
					}
				}
			}
		})
	}
}

// TestDDNetResaveDiff: DDNet's map_resave reads the variant and writes it
// again with DDNet's own writer, and map_optimize rewrites it with its
// embedded images cleared outside the tiles used and dilated (DDNet's
// dilate, on the RGBA pixels); map_diff then finds no tile that differs.
// As a control, map_diff between the original 0.7 map and its variant
// reports differing tiles exactly when the original has version-4 layers
// (DDNet 16.4 reads those bytes as raw tiles).
func TestDDNetResaveDiff(t *testing.T) {
	resave, diff, optimize := needTool(t, "map_resave"), needTool(t, "map_diff"), needTool(t, "map_optimize")
	for _, m := range toolMaps(t) {
		t.Run(m.Name, func(t *testing.T) {
			dir := t.TempDir()
			save := filepath.Join(dir, "home", ".local", "share", "ddnet")
			if err := os.MkdirAll(save, 0o755); err != nil {
				t.Fatal(err)
			}
			_, p := writeVariant(t, dir, m)
			runTool(t, dir, resave, p, "resaved.map") // written to the save directory
			out := runTool(t, dir, diff, p, filepath.Join(save, "resaved.map"))
			if strings.Contains(out, " != ") || !strings.Contains(out, "loading done") {
				t.Fatalf("map_diff variant vs DDNet's resave:\n%s", out)
			}
			runTool(t, dir, optimize, p, "optimized.map") // written as out/optimized.map
			out = runTool(t, dir, diff, p, filepath.Join(dir, "out", "optimized.map"))
			if strings.Contains(out, " != ") || !strings.Contains(out, "loading done") {
				t.Fatalf("map_diff variant vs DDNet's map_optimize output:\n%s", out)
			}
			orig := filepath.Join(dir, m.Name+"_07.map")
			if err := os.WriteFile(orig, m.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			v4 := false
			for _, l := range m.Layers {
				v4 = v4 || (l.Tiles != nil && l.Tiles.Version > 3)
			}
			out = runTool(t, dir, diff, orig, p)
			if got := strings.Contains(out, " != "); got != v4 {
				t.Errorf("map_diff original vs variant reports differing tiles: %v, original has version-4 layers: %v", got, v4)
			}
		})
	}
}

// TestDDNetExtract: DDNet's map_extract writes every embedded image of the
// variant as PNG; the pixels equal the Teeworlds 0.7.5 image installed by
// teeworlds-data.
func TestDDNetExtract(t *testing.T) {
	tool := needTool(t, "map_extract")
	n := 0
	for _, m := range toolMaps(t) {
		v, err := Derive(m)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Embedded) == 0 {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			dir := t.TempDir()
			_, p := writeVariant(t, dir, m)
			out := filepath.Join(dir, "out")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			runTool(t, dir, tool, p, out)
			for _, name := range v.Embedded {
				w, h, want := systemStock(name)
				if want == nil {
					testenv.Partly(t, "the 0.7.5 image "+name+" (Debian package teeworlds-data)", errors.New("not installed: nothing to compare the extracted image with"))
					continue
				}
				b, err := os.ReadFile(filepath.Join(out, name+".png"))
				if err != nil {
					t.Fatalf("map_extract wrote no %s.png: %v", name, err)
				}
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				got := image.NewNRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
				draw.Draw(got, got.Rect, img, img.Bounds().Min, draw.Src)
				if got.Rect.Dx() != w || got.Rect.Dy() != h || !bytes.Equal(got.Pix, want) {
					t.Errorf("%s: extracted %v differs from the 0.7.5 image %dx%d", name, got.Rect, w, h)
				}
				n++
			}
		})
	}
	t.Logf("compared %d extracted images", n)
}

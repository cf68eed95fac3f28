package twmap

import (
	"bytes"
	"fmt"

	"twserver/snap"
	"twserver/world/datafile"
)

// parse fills the map model from m.file.
func (m *Map) parse() error {
	f := m.file
	v, ok := f.Find(ItemTypeVersion, 0)
	if !ok {
		return fmt.Errorf("%w: no VERSION item", ErrNoVersion)
	}
	if ver, ok := v.Int(0); !ok || ver != MapVersion {
		return fmt.Errorf("%w: version item %v", ErrNoVersion, v.Ints())
	}
	if err := m.parseInfo(); err != nil {
		return err
	}
	if err := m.parseImages(); err != nil {
		return err
	}
	if err := m.parseLayers(); err != nil {
		return err
	}
	if err := m.parseGroups(); err != nil {
		return err
	}
	_, m.NumEnvelopes = f.Type(ItemTypeEnvelope)
	return m.parseGame()
}

// ints reads the first n words of an item, failing when it is shorter.
func ints(it datafile.Item, n int, what string) ([]int32, error) {
	if it.NumInts() < n {
		return nil, fmt.Errorf("%w: %s item %d has %d words, needs %d", ErrBadItem, what, it.ID, it.NumInts(), n)
	}
	out := make([]int32, it.NumInts())
	for k := range out {
		out[k], _ = it.Int(k)
	}
	return out, nil
}

// dataString decodes a NUL-terminated string stored in data blob idx
// (-1 means absent).
func (m *Map) dataString(idx int32, what string) (string, error) {
	if idx == -1 {
		return "", nil
	}
	if idx < 0 || int(idx) >= m.file.NumData() {
		return "", fmt.Errorf("%w: %s refers to data blob %d of %d", ErrBadItem, what, idx, m.file.NumData())
	}
	if sz := m.file.DataSize(int(idx)); sz > MaxStringLen {
		return "", fmt.Errorf("%w: %s string is %d bytes, limit %d", ErrBadItem, what, sz, MaxStringLen)
	}
	b, err := m.file.Data(int(idx))
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b), nil
}

func (m *Map) parseInfo() error {
	it, ok := m.file.Find(ItemTypeInfo, 0)
	if !ok {
		return nil
	}
	w, err := ints(it, infoItemInts, "info")
	if err != nil {
		return err
	}
	fields := []*string{&m.Info.Author, &m.Info.Version, &m.Info.Credits, &m.Info.License}
	names := []string{"info author", "info version", "info credits", "info license"}
	for k, p := range fields {
		if *p, err = m.dataString(w[1+k], names[k]); err != nil {
			return err
		}
	}
	return nil
}

func (m *Map) parseImages() error {
	items := m.file.ItemsOfType(ItemTypeImage)
	m.Images = make([]Image, len(items))
	for i, it := range items {
		w, err := ints(it, imageItemIntsV1, "image")
		if err != nil {
			return err
		}
		img := Image{Width: int(w[1]), Height: int(w[2]), External: w[3] != 0, Data: int(w[5]), Format: 1}
		if w[0] >= 2 && len(w) >= imageItemIntsV2 {
			img.Format = int(w[6])
		}
		if img.Name, err = m.dataString(w[4], fmt.Sprintf("image %d name", i)); err != nil {
			return err
		}
		if !img.External && (img.Data < 0 || img.Data >= m.file.NumData()) {
			return fmt.Errorf("%w: embedded image %d refers to data blob %d of %d", ErrBadItem, i, img.Data, m.file.NumData())
		}
		if img.Width < 0 || img.Height < 0 {
			return fmt.Errorf("%w: image %d is %dx%d", ErrBadItem, i, img.Width, img.Height)
		}
		m.Images[i] = img
	}
	return nil
}

func (m *Map) checkImage(idx int32, layer int) error {
	if idx != -1 && (idx < 0 || int(idx) >= len(m.Images)) {
		return fmt.Errorf("%w: layer %d uses image %d of %d", ErrBadItem, layer, idx, len(m.Images))
	}
	return nil
}

func (m *Map) checkData(idx int32, layer int) error {
	if idx < 0 || int(idx) >= m.file.NumData() {
		return fmt.Errorf("%w: layer %d refers to data blob %d of %d", ErrBadItem, layer, idx, m.file.NumData())
	}
	return nil
}

func (m *Map) parseLayers() error {
	items := m.file.ItemsOfType(ItemTypeLayer)
	m.Layers = make([]Layer, len(items))
	for i, it := range items {
		w, err := ints(it, layerHeaderInts, "layer")
		if err != nil {
			return err
		}
		l := Layer{Type: int(w[1]), Flags: int(w[2])}
		switch l.Type {
		case LayerTypeTiles:
			if len(w) < tilemapMinInts {
				return fmt.Errorf("%w: tile layer %d has %d words, needs %d", ErrBadItem, i, len(w), tilemapMinInts)
			}
			t := &TileLayer{
				Version: int(w[3]), Width: int(w[4]), Height: int(w[5]), Flags: int(w[6]),
				Color:    [4]int32{w[7], w[8], w[9], w[10]},
				ColorEnv: int(w[11]), ColorEnvOffset: w[12], Image: int(w[13]), Data: int(w[14]),
			}
			if t.Width < 1 || t.Height < 1 || t.Width > MaxLayerDim || t.Height > MaxLayerDim {
				return fmt.Errorf("%w: tile layer %d is %dx%d (limit %d per side)", ErrBadItem, i, t.Width, t.Height, MaxLayerDim)
			}
			if err := m.checkImage(w[13], i); err != nil {
				return err
			}
			if err := m.checkData(w[14], i); err != nil {
				return err
			}
			if t.Version >= 3 && len(w) >= tilemapItemInts {
				l.Name = snap.IntsToStr(w[15 : 15+nameInts])
			}
			l.Tiles = t
		case LayerTypeQuads:
			if len(w) < quadsMinInts {
				return fmt.Errorf("%w: quads layer %d has %d words, needs %d", ErrBadItem, i, len(w), quadsMinInts)
			}
			q := &QuadLayer{Version: int(w[3]), NumQuads: int(w[4]), Data: int(w[5]), Image: int(w[6])}
			if q.NumQuads < 0 {
				return fmt.Errorf("%w: quads layer %d has %d quads", ErrBadItem, i, q.NumQuads)
			}
			if err := m.checkImage(w[6], i); err != nil {
				return err
			}
			if q.NumQuads > 0 {
				if err := m.checkData(w[5], i); err != nil {
					return err
				}
			}
			if q.Version >= 2 && len(w) >= quadsItemInts {
				l.Name = snap.IntsToStr(w[7 : 7+nameInts])
			}
			l.Quads = q
		}
		m.Layers[i] = l
	}
	return nil
}

func (m *Map) parseGroups() error {
	items := m.file.ItemsOfType(ItemTypeGroup)
	m.Groups = make([]Group, len(items))
	for i, it := range items {
		w, err := ints(it, groupMinInts, "group")
		if err != nil {
			return err
		}
		g := Group{
			OffsetX: w[1], OffsetY: w[2], ParallaxX: w[3], ParallaxY: w[4],
			StartLayer: int(w[5]), NumLayers: int(w[6]),
		}
		if g.StartLayer < 0 || g.NumLayers < 0 || g.StartLayer > len(m.Layers) || g.NumLayers > len(m.Layers)-g.StartLayer {
			return fmt.Errorf("%w: group %d spans layers [%d, +%d) of %d", ErrBadItem, i, g.StartLayer, g.NumLayers, len(m.Layers))
		}
		if w[0] >= 2 && len(w) >= groupClipMinInts {
			g.UseClipping = w[7] != 0
			g.ClipX, g.ClipY, g.ClipW, g.ClipH = w[8], w[9], w[10], w[11]
		}
		if w[0] >= 3 && len(w) >= groupItemIntsV3 {
			g.Name = snap.IntsToStr(w[12 : 12+nameInts])
		}
		m.Groups[i] = g
	}
	return nil
}

// parseGame selects the game layer as the reference does (the last tile
// layer with the game flag, scanning groups in order) and decodes it.
func (m *Map) parseGame() error {
	m.GameGroup, m.GameLayer = -1, -1
	for gi, g := range m.Groups {
		for li := g.StartLayer; li < g.StartLayer+g.NumLayers; li++ {
			if t := m.Layers[li].Tiles; t != nil && t.IsGame() {
				m.GameGroup, m.GameLayer = gi, li
				break
			}
		}
	}
	if m.GameLayer < 0 {
		return ErrNoGameLayer
	}
	t := m.Layers[m.GameLayer].Tiles
	if t.Width*t.Height > MaxGameTiles {
		return fmt.Errorf("%w: game layer is %dx%d, limit %d tiles", ErrBadTiles, t.Width, t.Height, MaxGameTiles)
	}
	m.Width, m.Height = t.Width, t.Height
	m.Game = make([]byte, t.Width*t.Height)
	m.GameFlags = make([]byte, t.Width*t.Height)
	err := expandTiles(m.file, t, func(i int, tile [4]byte) {
		m.Game[i], m.GameFlags[i] = tile[0], tile[1]
	})
	if err != nil {
		return fmt.Errorf("game layer: %w", err)
	}
	for i, idx := range m.Game {
		if idx < EntityOffset {
			continue
		}
		kind := int(idx) - EntityOffset
		if kind == EntityNull || kind >= NumEntities {
			continue
		}
		m.Entities = append(m.Entities, Entity{Kind: kind, X: i % m.Width, Y: i / m.Width})
	}
	return nil
}

// expandTiles calls put for each of the layer's width*height tiles in order.
// Tilemap versions up to 3 store raw tiles; version 4 repeats every stored
// tile 1+skip times.
func expandTiles(f *datafile.File, t *TileLayer, put func(i int, tile [4]byte)) error {
	n := t.Width * t.Height
	if n > MaxGameTiles {
		return fmt.Errorf("%w: %dx%d layer exceeds %d tiles", ErrBadTiles, t.Width, t.Height, MaxGameTiles)
	}
	b, err := f.Data(t.Data)
	if err != nil {
		return err
	}
	if t.Version <= 3 {
		if len(b) < n*tileBytes {
			return fmt.Errorf("%w: %d bytes of tiles for a %dx%d layer", ErrBadTiles, len(b), t.Width, t.Height)
		}
		for i := range n {
			put(i, [4]byte(b[i*tileBytes:]))
		}
		return nil
	}
	i := 0
	for p := 0; i < n; p += tileBytes {
		if p+tileBytes > len(b) {
			return fmt.Errorf("%w: run-length tiles end after %d of %d tiles", ErrBadTiles, i, n)
		}
		tile := [4]byte(b[p:])
		reps := int(tile[2]) + 1
		tile[2] = 0
		for ; reps > 0 && i < n; reps-- {
			put(i, tile)
			i++
		}
	}
	return nil
}

// decodeTiles returns all tiles of a tile layer.
func decodeTiles(f *datafile.File, t *TileLayer) ([]Tile, error) {
	if t.Width*t.Height > MaxGameTiles {
		return nil, fmt.Errorf("%w: %dx%d layer exceeds %d tiles", ErrBadTiles, t.Width, t.Height, MaxGameTiles)
	}
	out := make([]Tile, t.Width*t.Height)
	err := expandTiles(f, t, func(i int, b [4]byte) {
		out[i] = Tile{Index: b[0], Flags: b[1], Skip: b[2], Reserved: b[3]}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

package map06

import (
	"fmt"
	"slices"

	"twserver/snap"
	"twserver/world/datafile"
	"twserver/world/twmap"
)

// Item layouts, in int32 words (world spec 1.2; libtw2 doc/map.md).
const (
	imageWords06    = 6  // CMapItemImage_v1: version .. image_data
	imageVersion06  = 1  // image item version 0.6 clients write (RGBA)
	tilemapWords06  = 18 // tile layer with the name (tilemap version 3)
	tilemapPrefix   = 15 // tile layer words before the name
	tilemapVersion6 = 3  // raw tiles, read by every client
	groupWordsV1    = 7  // version .. num_layers
	groupWordsV2    = 12 // + use_clipping and the clip rectangle
	groupWordsV3    = 15 // + name
	envWords06      = 13 // CMapItemEnvelope_v2: v1 + synchronized
	envMinWords     = 4  // version, channels, start_point, num_points
	envVersion06    = 2  // last envelope version with 6-word points
	envBezierVer    = 3  // 0.7 envelope version with 22-word points
	pointWords06    = 6  // CEnvPoint_v1: time, curvetype, values[4]
	pointWords07    = 22 // 0.7 CEnvPoint: v1 + four bezier tangents per channel
	curveLinear     = 1  // CURVETYPE_LINEAR
	curveBezier     = 5  // CURVETYPE_BEZIER (0.7 only)
	quadBytes       = 38 * 4
	tileBytes       = 4
	maxMapItemType  = twmap.ItemTypeEnvPoints // the seven 0.7 map item types are 0..6
)

// Blob kinds: what a data blob holds, so that a blob the conversion rewrites
// is not also read as something else.
const (
	useKeep  = iota // read as stored (raw tiles, quads, RGBA pixels, strings)
	useTiles        // run-length tiles, expanded to n tiles
	useRGB          // RGB pixels, widened to n RGBA pixels
)

// blobUse is how the variant reads a blob: a kind and its element count.
type blobUse struct{ kind, n int }

// itemOut is the fate of one input item: dropped, kept as stored (words
// nil) or replaced by words.
type itemOut struct {
	drop  bool
	set   bool // replaced by words (which may be empty)
	words []int32
}

// conv is the conversion plan of one map.
type conv struct {
	m        *twmap.Map
	f        *datafile.File
	items    []itemOut // by input item index
	uses     map[int]blobUse
	expand   map[int]int    // blob -> a tile layer (index in m.Layers) to expand it with (useTiles blobs)
	widen    map[int][2]int // blob -> RGB image width, height
	extra    []*stockImage  // appended blobs: embedded stock images
	embedded []string
	budget   int64 // bytes of blobs to create, against MaxExpanded
	changed  bool
}

func (c *conv) needed() bool { return c.changed }

func (c *conv) embeddedNames() []string { return c.embedded }

// itemIndex returns the index in the item list of the k-th item of type typ.
func (c *conv) itemIndex(typ, k int) int {
	start, _ := c.f.Type(typ)
	return start + k
}

func (c *conv) replace(typ, k int, words []int32) {
	c.items[c.itemIndex(typ, k)] = itemOut{set: true, words: words}
	c.changed = true
}

func (c *conv) spend(n int64, what string) error {
	c.budget += n
	if c.budget > MaxExpanded {
		return fmt.Errorf("%w: %s brings the data to create to %d bytes, limit %d", ErrTooBig, what, c.budget, MaxExpanded)
	}
	return nil
}

// use records that blob idx is read as kind with n elements.
func (c *conv) use(idx, kind, n int, what string) error {
	if idx < 0 || idx >= c.f.NumData() {
		return fmt.Errorf("%w: %s refers to data blob %d of %d", ErrBadItem, what, idx, c.f.NumData())
	}
	prev, seen := c.uses[idx]
	u := blobUse{kind, n}
	if seen && prev != u && (prev.kind != useKeep || kind != useKeep) {
		return fmt.Errorf("%w: data blob %d is read in two ways (%s)", ErrBadData, idx, what)
	}
	c.uses[idx] = u
	return nil
}

// plan reads the map and decides every change, checking bounds, without
// building anything.
func plan(m *twmap.Map) (*conv, error) {
	f := m.File()
	c := &conv{
		m: m, f: f,
		items:  make([]itemOut, f.NumItems()),
		uses:   map[int]blobUse{},
		expand: map[int]int{},
		widen:  map[int][2]int{},
	}
	for i := range f.NumItems() {
		if f.Item(i).Type > maxMapItemType {
			c.items[i].drop = true
			c.changed = true
		}
	}
	cells, quadUse, err := c.planLayers()
	if err != nil {
		return nil, err
	}
	if err := c.planImages(cells, quadUse); err != nil {
		return nil, err
	}
	if err := c.planEnvelopes(); err != nil {
		return nil, err
	}
	c.planGroups()
	if err := c.checkKept(); err != nil {
		return nil, err
	}
	return c, nil
}

// checkKept inflates every blob the variant keeps and a client reads, so
// that a corrupt stream is an error here and not in the 0.6 client.
func (c *conv) checkKept() error {
	for idx := range c.f.NumData() { // in blob order: deterministic errors
		u, ok := c.uses[idx]
		if !ok || u.kind != useKeep {
			continue
		}
		if err := c.spend(int64(c.f.DataSize(idx)), fmt.Sprintf("data blob %d", idx)); err != nil {
			return err
		}
		if _, err := c.f.Data(idx); err != nil {
			return fmt.Errorf("%w: %w", ErrBadData, err)
		}
	}
	return nil
}

// planLayers converts tile and quad layers and returns, per image, the tile
// cells tile layers draw from it and whether quads use it.
func (c *conv) planLayers() (cells [][4]uint64, quadUse []bool, err error) {
	m := c.m
	cells = make([][4]uint64, len(m.Images))
	quadUse = make([]bool, len(m.Images))
	for k, it := range c.f.ItemsOfType(twmap.ItemTypeLayer) {
		l := m.Layers[k]
		w := it.Ints()
		switch {
		case l.Tiles != nil:
			if err := c.planTiles(k, w, cells); err != nil {
				return nil, nil, err
			}
		case l.Quads != nil:
			q := l.Quads
			if q.NumQuads > 0 {
				if c.f.DataSize(q.Data) < q.NumQuads*quadBytes {
					return nil, nil, fmt.Errorf("%w: quads layer %d holds %d bytes for %d quads", ErrBadData, k, c.f.DataSize(q.Data), q.NumQuads)
				}
				if err := c.use(q.Data, useKeep, 0, fmt.Sprintf("quads layer %d", k)); err != nil {
					return nil, nil, err
				}
			}
			if q.Image >= 0 {
				quadUse[q.Image] = true
			}
		case l.Type != twmap.LayerTypeInvalid && l.Type != twmap.LayerTypeGame:
			// A layer type 0.7 does not know (DDNet's sounds, front, ...):
			// 0.7 clients skip it, DDNet clients would interpret it.
			c.replace(twmap.ItemTypeLayer, k, []int32{w[0], twmap.LayerTypeInvalid, w[2]})
		}
	}
	return cells, quadUse, nil
}

// candidate reports whether image i is an external stock image whose 0.6
// copies differ somewhere, so that the cells drawn from it matter.
func (c *conv) candidate(i int) bool {
	if i < 0 {
		return false
	}
	img := c.m.Images[i]
	bad, ok := stockIncompatible[img.Name]
	return img.External && ok && bad != [4]uint64{}
}

func (c *conv) planTiles(k int, w []int32, cells [][4]uint64) error {
	t := c.m.Layers[k].Tiles
	n := t.Width * t.Height
	what := fmt.Sprintf("tile layer %d", k)
	out, rewrite := slices.Clone(w), false
	withName := func() []int32 { return append(out[:tilemapPrefix:tilemapPrefix], packedName(w)...) }
	if t.Version > tilemapVersion6 {
		out, rewrite = withName(), true
		out[3] = tilemapVersion6
		if err := c.spend(int64(n)*tileBytes, what); err != nil {
			return err
		}
		if err := c.use(t.Data, useTiles, n, what); err != nil {
			return err
		}
		c.expand[t.Data] = k
	} else {
		if t.Version == tilemapVersion6 && len(w) < tilemapWords06 {
			out, rewrite = withName(), true
		}
		if c.f.DataSize(t.Data) < n*tileBytes {
			return fmt.Errorf("%w: %s (%dx%d) holds %d bytes of raw tiles", ErrBadData, what, t.Width, t.Height, c.f.DataSize(t.Data))
		}
		if err := c.use(t.Data, useKeep, 0, what); err != nil {
			return err
		}
	}
	if t.Flags&^twmap.TilesLayerFlagGame != 0 {
		out[6], rewrite = int32(t.Flags&twmap.TilesLayerFlagGame), true
	}
	if rewrite {
		c.replace(twmap.ItemTypeLayer, k, out)
	}
	if !c.candidate(t.Image) {
		return nil
	}
	// The layer draws from a stock image whose 0.6 copies differ: collect
	// the cells it draws (index 0 is never drawn).
	if err := c.spend(int64(n)*tileBytes, what+" (cells)"); err != nil {
		return err
	}
	tiles, err := c.m.LayerTiles(k)
	if err != nil {
		return fmt.Errorf("map06: %s: %w", what, err)
	}
	for _, tl := range tiles {
		if tl.Index != 0 {
			cells[t.Image][tl.Index/64] |= 1 << (tl.Index % 64)
		}
	}
	return nil
}

// planGroups extends group items shorter than their version implies with
// what a 0.6 client reads there: no clipping and an empty name.
func (c *conv) planGroups() {
	for g, it := range c.f.ItemsOfType(twmap.ItemTypeGroup) {
		w := it.Ints()
		need := groupWordsV1
		if w[0] >= 2 {
			need = groupWordsV2
		}
		if w[0] >= 3 {
			need = groupWordsV3
		}
		if len(w) >= need {
			continue
		}
		for len(w) < min(need, groupWordsV2) {
			w = append(w, 0)
		}
		if need == groupWordsV3 {
			w = append(w, snap.StrToInts(make([]int32, groupWordsV3-groupWordsV2), "")[len(w)-groupWordsV2:]...)
		}
		c.replace(twmap.ItemTypeGroup, g, w)
	}
}

// packedName returns the name words of a tile layer item, or an empty
// packed name when the item has none.
func packedName(w []int32) []int32 {
	if len(w) >= tilemapWords06 {
		return w[tilemapPrefix:tilemapWords06]
	}
	return snap.StrToInts(make([]int32, tilemapWords06-tilemapPrefix), "")
}

// planImages rewrites every image item as version 1 and decides which
// embedded images to widen and which external ones to embed.
func (c *conv) planImages(cells [][4]uint64, quadUse []bool) error {
	items := c.f.ItemsOfType(twmap.ItemTypeImage)
	if len(items) > MaxImages {
		return fmt.Errorf("%w: %d images, 0.6 clients load %d", ErrTooBig, len(items), MaxImages)
	}
	for i, it := range items {
		img := c.m.Images[i]
		w := it.Ints()
		ext := int32(0)
		if img.External {
			ext = 1
		}
		out := append(make([]int32, 0, imageWords06), imageVersion06, w[1], w[2], ext, w[4], w[5])
		what := fmt.Sprintf("image %d (%q)", i, img.Name)
		if w[4] >= 0 {
			if err := c.use(int(w[4]), useKeep, 0, what+" name"); err != nil {
				return err
			}
		}
		if img.External {
			bad := stockIncompatible[img.Name]
			full := bad == [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
			hit := cells[i][0]&bad[0] | cells[i][1]&bad[1] | cells[i][2]&bad[2] | cells[i][3]&bad[3]
			if hit != 0 || (full && quadUse[i]) {
				s, err := loadStock(img.Name)
				if err != nil {
					return fmt.Errorf("map06: %s: %w", what, err)
				}
				if err := c.spend(int64(s.size), what+" embedded"); err != nil {
					return err
				}
				out = []int32{imageVersion06, int32(s.width), int32(s.height), 0, w[4], int32(c.f.NumData() + len(c.extra))}
				c.extra = append(c.extra, s)
				c.embedded = append(c.embedded, img.Name)
			}
		} else if err := c.planEmbedded(img, what); err != nil {
			return err
		}
		if !slices.Equal(out, w) {
			c.replace(twmap.ItemTypeImage, i, out)
		}
	}
	return nil
}

func (c *conv) planEmbedded(img twmap.Image, what string) error {
	if img.Width < 1 || img.Height < 1 || img.Width > MaxImageDim || img.Height > MaxImageDim {
		return fmt.Errorf("%w: embedded %s is %dx%d (1..%d per side)", ErrBadItem, what, img.Width, img.Height, MaxImageDim)
	}
	px := img.Width * img.Height
	switch img.Format {
	case 1: // RGBA
		if c.f.DataSize(img.Data) < px*4 {
			return fmt.Errorf("%w: %s holds %d bytes for %dx%d RGBA", ErrBadData, what, c.f.DataSize(img.Data), img.Width, img.Height)
		}
		return c.use(img.Data, useKeep, 0, what)
	case 0: // RGB
		if c.f.DataSize(img.Data) < px*3 {
			return fmt.Errorf("%w: %s holds %d bytes for %dx%d RGB", ErrBadData, what, c.f.DataSize(img.Data), img.Width, img.Height)
		}
		if err := c.spend(int64(px)*4, what); err != nil {
			return err
		}
		c.widen[img.Data] = [2]int{img.Width, img.Height}
		c.changed = true
		return c.use(img.Data, useRGB, px, what)
	}
	return fmt.Errorf("%w: %s has format %d", ErrImageFormat, what, img.Format)
}

// planEnvelopes checks every envelope's point range and converts the
// points to 6-word points when any envelope uses 0.7's 22-word bezier
// points. Like the 0.7 client, it reads each envelope's points with the
// stride its own version implies.
func (c *conv) planEnvelopes() error {
	envs := c.f.ItemsOfType(twmap.ItemTypeEnvelope)
	var src []int32
	if pts := c.f.ItemsOfType(twmap.ItemTypeEnvPoints); len(pts) > 0 {
		src = pts[0].Ints()
	}
	bezier := false
	for k, it := range envs {
		w := it.Ints()
		if len(w) < envMinWords {
			return fmt.Errorf("%w: envelope %d has %d words, needs %d", ErrBadItem, k, len(w), envMinWords)
		}
		stride := int64(pointWords06)
		if w[0] >= envBezierVer {
			stride = pointWords07
			bezier = true
		}
		start, num := int64(w[2]), int64(w[3])
		if start < 0 || num < 0 || (start+num)*stride > int64(len(src)) {
			return fmt.Errorf("%w: envelope %d uses points [%d, +%d) of %d", ErrBadItem, k, start, num, int64(len(src))/stride)
		}
	}
	if !bezier {
		for k, it := range envs {
			if w := it.Ints(); len(w) < envMinLen(w[0]) {
				c.replace(twmap.ItemTypeEnvelope, k, padEnvelope(w))
			}
		}
		return nil
	}
	for j := 1; j < len(c.f.ItemsOfType(twmap.ItemTypeEnvPoints)); j++ { // the clients read only the first
		c.items[c.itemIndex(twmap.ItemTypeEnvPoints, j)].drop = true
	}
	var out []int32
	for k, it := range envs {
		w := it.Ints()
		stride := int64(pointWords06)
		if w[0] >= envBezierVer {
			stride = pointWords07
		}
		start, num := int64(w[2]), int64(w[3])
		if int64(len(out))*4+num*pointWords06*4 > MaxSize {
			return fmt.Errorf("%w: envelope points exceed %d bytes", ErrTooBig, MaxSize)
		}
		newStart := int32(len(out) / pointWords06)
		for p := start; p < start+num; p++ {
			out = append(out, src[p*stride:p*stride+pointWords06]...)
			if out[len(out)-5] == curveBezier {
				out[len(out)-5] = curveLinear
			}
		}
		nw := w
		if w[0] >= envBezierVer {
			nw = append([]int32(nil), w[:min(len(w), envWords06)]...)
			nw[0] = envVersion06
		}
		nw = padEnvelope(nw)
		nw[2] = newStart
		c.replace(twmap.ItemTypeEnvelope, k, nw)
	}
	if start, num := c.f.Type(twmap.ItemTypeEnvPoints); num > 0 {
		c.items[start] = itemOut{set: true, words: out}
	}
	c.changed = true
	return nil
}

// envMinLen is the number of words a 0.6 client reads from an envelope of
// version v: the v1 fields with the 8-word name, plus synchronized from v2.
func envMinLen(v int32) int {
	if v >= envVersion06 {
		return envWords06
	}
	return envWords06 - 1
}

// padEnvelope returns w (copied) extended to the words a 0.6 client reads:
// an empty name and synchronized 0.
func padEnvelope(w []int32) []int32 {
	out := append([]int32(nil), w...)
	if n := envMinLen(w[0]); len(out) < n {
		const nameAt = envMinWords
		if len(out) < nameAt+8 {
			name := snap.StrToInts(make([]int32, 8), "")
			out = append(out, name[len(out)-nameAt:]...)
		}
		for len(out) < n {
			out = append(out, 0)
		}
	}
	return out
}

// build writes the variant file.
func (c *conv) build() ([]byte, error) {
	var w datafile.Writer
	for i := range c.f.NumItems() {
		it, out := c.f.Item(i), c.items[i]
		var err error
		switch {
		case out.drop:
			continue
		case out.set:
			err = w.AddItemInts(it.Type, it.ID, out.words)
		default:
			err = w.AddItem(it.Type, it.ID, it.Data)
		}
		if err != nil {
			return nil, fmt.Errorf("map06: item %d: %w", i, err)
		}
	}
	for k := range c.f.NumData() {
		if err := c.addBlob(&w, k); err != nil {
			return nil, err
		}
	}
	for _, s := range c.extra {
		if _, err := w.AddRawData(s.compressed, s.size); err != nil {
			return nil, fmt.Errorf("map06: embedded image %q: %w", s.name, err)
		}
	}
	b, err := w.Bytes()
	if err != nil {
		return nil, fmt.Errorf("map06: %w", err)
	}
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%w: variant is %d bytes, limit %d", ErrTooBig, len(b), MaxSize)
	}
	return b, nil
}

// addBlob appends data blob k: rewritten when the plan says so, else the
// stored bytes unchanged.
func (c *conv) addBlob(w *datafile.Writer, k int) error {
	var (
		b   []byte
		err error
	)
	switch {
	case c.uses[k].kind == useTiles:
		b, err = c.expandTiles(c.expand[k])
	case c.uses[k].kind == useRGB:
		b, err = c.widenRGB(k)
	case c.f.Version() == 4:
		_, err = w.AddRawData(c.f.RawData(k), c.f.DataSize(k))
		return wrapBlob(k, err)
	default: // datafile version 3 stores blobs raw
		_, err = w.AddData(c.f.RawData(k))
		return wrapBlob(k, err)
	}
	if err != nil {
		return wrapBlob(k, err)
	}
	_, err = w.AddData(b)
	return wrapBlob(k, err)
}

func wrapBlob(k int, err error) error {
	if err != nil {
		return fmt.Errorf("map06: data blob %d: %w", k, err)
	}
	return nil
}

func (c *conv) expandTiles(layer int) ([]byte, error) {
	tiles, err := c.m.LayerTiles(layer)
	if err != nil {
		return nil, fmt.Errorf("tile layer %d: %w", layer, err)
	}
	b := make([]byte, 0, len(tiles)*tileBytes)
	for _, t := range tiles {
		b = append(b, t.Index, t.Flags, 0, t.Reserved)
	}
	return b, nil
}

func (c *conv) widenRGB(k int) ([]byte, error) {
	d := c.widen[k]
	src, err := c.f.Data(k)
	if err != nil {
		return nil, err
	}
	px := d[0] * d[1]
	b := make([]byte, 0, px*4)
	for p := range px {
		b = append(b, src[3*p], src[3*p+1], src[3*p+2], 0xff)
	}
	return b, nil
}

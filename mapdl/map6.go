package mapdl

import (
	"twserver/netproto"
	"twserver/world/map06"
	"twserver/world/twmap"
)

// The 0.6 map download (net.md B3.4): the client asks for each chunk
// itself (REQUEST_MAP_DATA with the chunk's index) and the server answers
// each request with that chunk; nothing is paced or probed.

// ChunkSize6 is the size of a 0.6 MAP_DATA chunk (net.md B3.4).
const ChunkSize6 = 1024 - 128

// MaxRequestsFactor bounds the REQUEST_MAP_DATA answered per map change
// to this many times the map's chunk count (DDNet's cap: a 15-byte request
// buys an 896-byte chunk).
const MaxRequestsFactor = 2

// uuidMapDetails is DDNet's map-details message (net.md B3.3).
var uuidMapDetails = netproto.DDNetUUID("map-details@ddnet.tw")

// Variant6 is what 0.6 clients are sent of the current map: its 0.6
// variant (world/map06: 0.7-compressed tile layers expanded, RGBA images,
// no 0.7-only features) with its own CRC, size and SHA-256, under the
// map's name.
type Variant6 struct {
	// Name is the map's name.
	Name string
	// Data is the 0.6 map file.
	Data []byte
	// CRC is the crc32 of Data.
	CRC uint32
	// Size is len(Data).
	Size int
	// SHA256 is the SHA-256 of Data.
	SHA256 [32]byte
}

// Derive6 makes the 0.6 variant of m (map06.Derive). If m cannot be
// converted, it returns m as it is with the error (0.6 clients read it
// when its tile layers are not 0.7-compressed).
func Derive6(m *twmap.Map) (Variant6, error) {
	v, err := map06.Derive(m)
	if err != nil {
		return Variant6{Name: m.Name, Data: m.Data, CRC: m.CRC, Size: m.Size, SHA256: m.SHA256}, err
	}
	return Variant6{Name: m.Name, Data: v.Data, CRC: v.CRC, Size: v.Size, SHA256: v.SHA256}, nil
}

// PackDetails packs DDNet's map-details message (name, SHA-256, CRC, size,
// no URL) into pk, replacing what it held.
func (m *Variant6) PackDetails(pk *netproto.Packer) {
	pk.Reset()
	pk.AddMsgHeader(netproto.Netmsg6Ex, true)
	pk.AddRaw(uuidMapDetails[:])
	pk.AddString(m.Name)
	pk.AddRaw(m.SHA256[:])
	pk.AddInt(int32(m.CRC))
	pk.AddInt(int32(m.Size))
	pk.AddString("")
}

// PackChange packs the 0.6 MAP_CHANGE into pk, replacing what it held.
func (m *Variant6) PackChange(pk *netproto.Packer) {
	mc := netproto.Msg6MapChange{Name: m.Name, CRC: m.CRC, Size: int32(m.Size)}
	pk.Reset()
	pk.AddMsgHeader(mc.ID(), true)
	mc.Pack(pk)
}

// Start6 begins a 0.6 download at MAP_CHANGE: Chunk counts the requests
// answered since, Asked is one past the highest chunk requested (the
// pre-game progress).
func (d *Download) Start6() { d.Chunk, d.Asked = 0, 0 }

// Answer6 packs the answer to REQUEST_MAP_DATA(chunk) of m into pk:
// out-of-range requests and those beyond MaxRequestsFactor × the chunk
// count per map change get none (ok false). moved reports a chunk not
// asked for before: the download moved on.
func (d *Download) Answer6(m *Variant6, chunk int32, pk *netproto.Packer) (ok, moved bool) {
	chunks := (m.Size + ChunkSize6 - 1) / ChunkSize6
	if chunk < 0 || int64(chunk)*ChunkSize6 > int64(m.Size) || d.Chunk >= MaxRequestsFactor*chunks {
		return false, false
	}
	d.Chunk++
	if int(chunk) >= d.Asked {
		d.Asked = int(chunk) + 1
		moved = true
	}
	off := int(chunk) * ChunkSize6
	end := min(off+ChunkSize6, m.Size)
	last := int32(0)
	if end == m.Size {
		last = 1
	}
	md := netproto.Msg6MapData{Last: last, CRC: m.CRC, Chunk: chunk, Data: m.Data[off:end]}
	pk.Reset()
	pk.AddMsgHeader(md.ID(), true)
	md.Pack(pk)
	return true, moved
}

// SendMapDetails6 makes the server announce the map's SHA-256 to DDNet
// clients before MAP_CHANGE (map-details@ddnet.tw, net.md B3.3), as
// DDNet-Server does: the client checks the downloaded map with it (and
// tries an HTTPS download first, falling back to the in-game download).
const SendMapDetails6 = true

// PackChange packs the 0.7 MAP_CHANGE of m (net.md A3.4) into pk,
// replacing what it held: the map's name, CRC, size and SHA-256, and the
// download's cpr chunks per request of ChunkSize bytes.
func PackChange(pk *netproto.Packer, m *twmap.Map, cpr int) {
	pk.Reset()
	pk.AddMsgHeader(netproto.NetmsgMapChange, true)
	pk.AddString(m.Name)
	pk.AddInt(int32(m.CRC))
	pk.AddInt(int32(m.Size))
	pk.AddInt(int32(cpr))
	pk.AddInt(ChunkSize)
	pk.AddRaw(m.SHA256[:])
}

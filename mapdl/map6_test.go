package mapdl

import (
	"bytes"
	"testing"

	"twserver/netproto"
	"twserver/world/twmap"
)

// TestAnswer6 checks the answers to 0.6 chunk requests: each chunk's
// bytes and last flag, no answer out of range, progress only for a chunk
// not asked for before, and at most MaxRequestsFactor × the chunk count
// answered per map change (Start6 resets the count).
func TestAnswer6(t *testing.T) {
	data := make([]byte, 2*ChunkSize6+10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	m := &Variant6{Name: "m", Data: data, CRC: 42, Size: len(data)}
	var d Download
	d.Start6()
	var pk netproto.Packer
	for chunk := int32(0); chunk < 3; chunk++ {
		ok, moved := d.Answer6(m, chunk, &pk)
		if !ok || !moved {
			t.Fatalf("chunk %d: ok %v moved %v", chunk, ok, moved)
		}
		u := netproto.Unpacker{}
		u.Reset(pk.Bytes())
		if id, sys := u.GetMsgHeader(); id != netproto.Netmsg6MapData || !sys {
			t.Fatalf("chunk %d: message %d system %v", chunk, id, sys)
		}
		var md netproto.Msg6MapData
		if err := md.Unpack(&u); err != nil {
			t.Fatal(err)
		}
		off := int(chunk) * ChunkSize6
		want := data[off:min(off+ChunkSize6, len(data))]
		if md.Chunk != chunk || md.CRC != 42 || !bytes.Equal(md.Data, want) || (md.Last == 1) != (chunk == 2) {
			t.Fatalf("chunk %d: got chunk %d crc %d last %d, %d bytes", chunk, md.Chunk, md.CRC, md.Last, len(md.Data))
		}
	}
	if ok, _ := d.Answer6(m, -1, &pk); ok {
		t.Fatal("answered chunk -1")
	}
	if ok, _ := d.Answer6(m, 4, &pk); ok {
		t.Fatal("answered a chunk past the end")
	}
	if ok, moved := d.Answer6(m, 1, &pk); !ok || moved {
		t.Fatalf("repeated chunk: ok %v moved %v", ok, moved)
	}
	for d.Chunk < MaxRequestsFactor*3 {
		if ok, _ := d.Answer6(m, 0, &pk); !ok {
			t.Fatalf("request %d refused", d.Chunk)
		}
	}
	if ok, _ := d.Answer6(m, 0, &pk); ok {
		t.Fatalf("answered request %d past the cap", d.Chunk+1)
	}
	d.Start6()
	if ok, moved := d.Answer6(m, 0, &pk); !ok || !moved {
		t.Fatal("no answer after a new map change")
	}
}

// TestPackChange: the 0.7 MAP_CHANGE carries the map's name, CRC, size,
// the chunks per request, the chunk size and the SHA-256, in that order.
func TestPackChange(t *testing.T) {
	m := twmap.Default()
	var pk netproto.Packer
	pk.AddString("left over")
	PackChange(&pk, m, 8)
	id, system, n, err := netproto.ParseMsgHeader(pk.Bytes())
	if err != nil || !system || id != netproto.NetmsgMapChange {
		t.Fatalf("header: id %d system %v err %v", id, system, err)
	}
	var u netproto.Unpacker
	u.Reset(pk.Bytes()[n:])
	name, crc, size, cpr, chunk := u.GetString(), u.GetInt(), u.GetInt(), u.GetInt(), u.GetInt()
	sha := u.GetRaw(32)
	if u.Err() != nil || u.Remaining() != 0 {
		t.Fatalf("unpack: %v, %d bytes left", u.Err(), u.Remaining())
	}
	if name != m.Name || uint32(crc) != m.CRC || int(size) != m.Size || cpr != 8 || chunk != ChunkSize || !bytes.Equal(sha, m.SHA256[:]) {
		t.Errorf("MAP_CHANGE %q %08x %d %d %d %x", name, crc, size, cpr, chunk, sha)
	}
}

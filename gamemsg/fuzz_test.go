package gamemsg

import (
	"reflect"
	"testing"
)

// FuzzDecode decodes arbitrary bytes as every message id. Whatever decodes
// must pass Validate, encode without error, and decode again to the same value
// (sanitizing is idempotent).
func FuzzDecode(f *testing.F) {
	for _, m := range samples() {
		var p testPacker
		if err := Encode(&p, m); err != nil {
			f.Fatal(err)
		}
		f.Add(p.b)
	}
	f.Add([]byte{0x36, 0x80})
	f.Add([]byte{0x2a, 0x09, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		for id := int32(0); id <= NumMessages; id++ {
			u := testUnpacker{b: b}
			m, err := Decode(id, &u)
			if err != nil {
				continue
			}
			if err := m.Validate(); err != nil {
				t.Fatalf("%s decoded but invalid: %v", Name(id), err)
			}
			var p testPacker
			if err := Encode(&p, m); err != nil {
				t.Fatalf("%s: re-encode: %v", Name(id), err)
			}
			m2, err := decodeAll(p.b)
			if err != nil {
				t.Fatalf("%s: decode of re-encoding % x: %v", Name(id), p.b, err)
			}
			if !reflect.DeepEqual(m, m2) {
				t.Fatalf("%s: not stable:\n%+v\n%+v", Name(id), m, m2)
			}
		}
	})
}

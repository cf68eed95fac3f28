package netproto

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestPackerGolden(t *testing.T) {
	// The first data packet body of a 0.7.5 client (spec A1.10): INFO.
	var p Packer
	p.AddMsgHeader(NetmsgInfo, true)
	p.AddString("0.7 802f1be60a05665f")
	p.AddString("")
	p.AddInt(0x0705)
	want := unhex(t, "03 30 2e 37 20 38 30 32 66 31 62 65 36 30 61 30 35 36 36 35 66 00 00 85 1c")
	if p.Err() != nil || !bytes.Equal(p.Bytes(), want) {
		t.Fatalf("got % x, %v; want % x", p.Bytes(), p.Err(), want)
	}
	p.Reset()
	if p.Len() != 0 || p.Err() != nil {
		t.Fatal("Reset did not empty the packer")
	}
}

func TestPackerStringLimit(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"unlimited", "hello", 0, "hello\x00"},
		{"negative unlimited", "hello", -1, "hello\x00"},
		{"cut", "hello", 3, "hel\x00"},
		{"exact", "hello", 5, "hello\x00"},
		{"utf8 not split", "aé", 2, "a\x00"},
		{"embedded nul ends", "ab\x00cd", 0, "ab\x00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Packer
			p.AddStringLimit(tc.in, tc.limit)
			if got := string(p.Bytes()); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPackerOverflowSticky(t *testing.T) {
	tests := []struct {
		name string
		fill func(p *Packer)
	}{
		{"raw", func(p *Packer) { p.AddRaw(make([]byte, PackerBufferSize+1)) }},
		{"string", func(p *Packer) { p.AddString(strings.Repeat("x", PackerBufferSize)) }},
		{"int", func(p *Packer) {
			p.AddRaw(make([]byte, PackerBufferSize-1))
			p.AddInt(64) // needs 2 bytes
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Packer
			tc.fill(&p)
			if !errors.Is(p.Err(), ErrBufferFull) {
				t.Fatalf("err = %v", p.Err())
			}
			n := p.Len()
			p.AddInt(1)
			p.AddRaw([]byte{1})
			p.AddString("")
			if p.Len() != n {
				t.Fatal("write after error")
			}
		})
	}
	var p Packer
	p.AddRaw(make([]byte, PackerBufferSize))
	if p.Err() != nil {
		t.Fatal("exact fill must succeed")
	}
}

func TestUnpacker(t *testing.T) {
	var u Unpacker
	u.Reset(unhex(t, "03 30 2e 37 00 00 85 1c"))
	id, sys := u.GetMsgHeader()
	if id != NetmsgInfo || !sys {
		t.Fatalf("header %d %v", id, sys)
	}
	if s := u.GetString(); s != "0.7" {
		t.Fatalf("version %q", s)
	}
	if s := u.GetString(); s != "" {
		t.Fatalf("password %q", s)
	}
	if v := u.GetInt(); v != 0x0705 {
		t.Fatalf("client version %d", v)
	}
	// Missing trailing string reads as "" without error, optional int as default.
	if s := u.GetString(); s != "" || u.Err() != nil {
		t.Fatalf("trailing string %q, %v", s, u.Err())
	}
	if v := u.GetIntOrDefault(7); v != 7 || u.Err() != nil {
		t.Fatalf("default %d, %v", v, u.Err())
	}
	if u.GetInt(); !errors.Is(u.Err(), ErrTruncated) {
		t.Fatalf("err %v", u.Err())
	}
}

func TestUnpackerErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		read func(u *Unpacker)
		err  error
	}{
		{"int at end", "", func(u *Unpacker) { u.GetInt() }, ErrTruncated},
		{"int runs past end", "80 80", func(u *Unpacker) { u.GetInt() }, ErrTruncated},
		{"string without nul", "41 42", func(u *Unpacker) { u.GetString() }, ErrBadString},
		{"raw negative", "01 02", func(u *Unpacker) { u.GetRaw(-1) }, ErrNegative},
		{"raw too long", "01 02", func(u *Unpacker) { u.GetRaw(3) }, ErrTruncated},
		{"sticky", "80", func(u *Unpacker) { u.GetInt(); u.GetRaw(0); u.GetIntOrDefault(1) }, ErrTruncated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var u Unpacker
			u.Reset(unhex(t, tc.in))
			tc.read(&u)
			if !errors.Is(u.Err(), tc.err) {
				t.Fatalf("err = %v, want %v", u.Err(), tc.err)
			}
			if u.GetInt() != 0 || u.GetString() != "" || u.GetRaw(0) != nil || u.Rest() != nil {
				t.Fatal("getter returned data after error")
			}
		})
	}
}

func TestUnpackerSanitize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		mode SanitizeMode
		want string
	}{
		{"default keeps tab nl cr", "a\tb\nc\rd\x01e", Sanitize, "a\tb\nc\rd e"},
		{"cc replaces all", "a\tb\nc\rd\x01e", SanitizeCC, "a b c d e"},
		{"zero mode is default", "a\x1fb", 0, "a b"},
		{"skip whitespace", " \t\u00a0\u200b\u3000name ", Sanitize | SkipStartWhitespaces, "name "},
		{"skip all", "   ", SkipStartWhitespaces, ""},
		{"skip stops at invalid utf8", " \xffx", SkipStartWhitespaces, "\xffx"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var u Unpacker
			u.Reset(append([]byte(tc.in), 0))
			if got := u.GetStringMode(tc.mode); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzUnpacker(f *testing.F) {
	f.Add([]byte{0x03, 0x30, 0x00, 0x00, 0x85, 0x1c}, []byte{0, 1, 1, 0, 2})
	f.Add([]byte{0x80, 0x80}, []byte{0, 3, 2})
	for _, p := range captureSeeds(f) {
		if len(p) > PacketHeaderSize {
			f.Add(p[PacketHeaderSize:], []byte{0, 1, 2, 3, 4, 0, 1})
		}
	}
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		in := bytes.Clone(data)
		var u Unpacker
		u.Reset(in)
		consumed := 0
		for _, op := range ops {
			before := u.Remaining()
			var rec []byte
			switch op % 5 {
			case 0:
				v := u.GetInt()
				if u.Err() == nil {
					rec = AppendInt(nil, v)
					if len(rec) > before-u.Remaining() {
						t.Fatalf("varint %d re-encodes longer than read", v)
					}
				}
			case 1:
				s := u.GetStringBytes(SanitizeMode(op >> 3))
				if u.Err() == nil && bytes.IndexByte(s, 0) >= 0 {
					t.Fatal("string contains NUL")
				}
			case 2:
				r := u.GetRaw(int(op>>3) - 2)
				if u.Err() == nil && len(r) != int(op>>3)-2 {
					t.Fatal("raw length")
				}
			case 3:
				u.GetIntOrDefault(-1)
			case 4:
				u.GetMsgHeader()
			}
			if u.Remaining() < 0 || u.Remaining() > before {
				t.Fatalf("remaining %d -> %d", before, u.Remaining())
			}
			consumed += before - u.Remaining()
		}
		if consumed+u.Remaining() != len(in) {
			t.Fatalf("consumed %d + remaining %d != %d", consumed, u.Remaining(), len(in))
		}
		if u.Err() == nil && len(u.Rest()) != len(in)-consumed {
			t.Fatal("rest length")
		}
	})
}

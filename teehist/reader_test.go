package teehist

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"testing"
	"testing/iotest"

	"twserver/netproto"
)

// readAll parses a whole file and returns its messages (copies).
func readAll(data []byte) (*Header, []Message, error) {
	r := NewReader(bytes.NewReader(data))
	h, err := r.ReadHeader()
	if err != nil {
		return nil, nil, err
	}
	var out []Message
	for {
		var m Message
		err := r.Next(&m)
		if err == io.EOF {
			return h, out, nil
		}
		if err != nil {
			return h, out, err
		}
		m.Data = append([]byte(nil), m.Data...)
		m.Args = append([]string(nil), m.Args...)
		out = append(out, m)
	}
}

// TestReadReferenceFiles parses the reference server's files to FINISH.
func TestReadReferenceFiles(t *testing.T) {
	for _, name := range []string{"ddnet_06.teehistorian", "ddnet_07.teehistorian"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + name)
			if err != nil {
				t.Fatal(err)
			}
			h, msgs, err := readAll(data)
			if err != nil {
				t.Fatal(err)
			}
			if h.Version != "2" || h.MapName != "dm1" || h.MapSize != 5805 || h.MapCRC != 0xf2159e6e {
				t.Errorf("header: %+v", h)
			}
			last := msgs[len(msgs)-1]
			if last.Kind != KindFinish {
				t.Fatalf("last message %v", last.Kind)
			}
			counts := map[string]int{}
			var joins, ready, inputs, players int
			prevTick := int32(0)
			for _, m := range msgs {
				if m.Tick < prevTick {
					t.Fatalf("tick went back at %d: %d < %d", m.Offset, m.Tick, prevTick)
				}
				prevTick = m.Tick
				k := m.Kind.String()
				if m.Kind == KindEx {
					k = m.Ex.String()
					if _, err := DecodeEx(m.Ex, m.Data); err != nil {
						t.Errorf("EX %v at %d: %v", m.Ex, m.Offset, err)
					}
				}
				counts[k]++
				switch {
				case m.Kind == KindJoin:
					joins++
				case m.Ex == ExPlayerReady:
					ready++
				case m.Kind == KindInputNew || m.Kind == KindInputDiff:
					inputs++
				case m.Kind == KindPlayerNew || m.Kind == KindPlayerDiff:
					players++
				}
			}
			t.Logf("%d messages, last tick %d: %v", len(msgs), prevTick, counts)
			if joins != 1 || ready < 1 || inputs == 0 || players == 0 || counts["DROP"] != 1 {
				t.Errorf("unexpected contents: %v", counts)
			}
			// ~15 s at 50 Hz
			if prevTick < 300 || prevTick > 3000 {
				t.Errorf("last tick %d", prevTick)
			}
			// Re-encoding every message reproduces the file byte for byte.
			if got := reencode(t, h, msgs); !bytes.Equal(got, data) {
				t.Errorf("re-encoding differs (len %d vs %d)", len(got), len(data))
			}
		})
	}
}

// reencode writes messages back with a raw writer (no tick rules).
func reencode(t *testing.T, h *Header, msgs []Message) []byte {
	t.Helper()
	out := append([]byte{}, Magic[:]...)
	out = append(out, h.Raw...)
	out = append(out, 0)
	for i := range msgs {
		out = AppendMessage(out, &msgs[i])
	}
	return out
}

// TestTruncated cuts a file at every byte: the reader reports an error with
// an offset inside the file (or succeeds up to the cut), never panics.
func TestTruncated(t *testing.T) {
	data, err := os.ReadFile("testdata/ddnet_07.teehistorian")
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n++ {
		_, msgs, err := readAll(data[:n])
		if err == nil {
			t.Fatalf("cut at %d: no error", n)
		}
		var e *Error
		if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(n) {
			t.Fatalf("cut at %d: %v", n, err)
		}
		for _, m := range msgs {
			if m.Kind == KindFinish {
				t.Fatalf("cut at %d: FINISH seen", n)
			}
		}
	}
}

func TestCorrupt(t *testing.T) {
	good := append(append([]byte{}, Magic[:]...), `{"version":"2"}`...)
	good = append(good, 0)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"magic", append([]byte{1}, good[1:]...), ErrBadMagic},
		{"no version", append(append(append([]byte{}, Magic[:]...), "{}"...), 0), ErrBadHeader},
		{"bad json", append(append(append([]byte{}, Magic[:]...), "{"...), 0), ErrBadHeader},
		{"unknown id", append(append([]byte{}, good...), 0x4b), ErrMalformed},
		{"cid 64", append(append([]byte{}, good...), 0x80, 0x01, 0, 0), ErrMalformed},
		{"huge message", append(append([]byte{}, good...), 0x46, 0x00, 0x80, 0x80, 0x80, 0x08), ErrTooLarge},
		{"negative size", append(append([]byte{}, good...), 0x46, 0x00, 0x40), ErrMalformed},
		{"too many args", append(append([]byte{}, good...), 0x49, 0x00, 0x00, 0x00, 0x80, 0x80, 0x01), ErrMalformed},
		{"no finish", good, io.ErrUnexpectedEOF},
		{"tick skip past int32", netproto.AppendInt(append(append([]byte{}, good...), 0x41), math.MaxInt32), ErrMalformed},
		{"implicit tick past int32", append(netproto.AppendInt(append(append([]byte{}, good...), 0x41), math.MaxInt32-1),
			0, 0, 0, 0, 0, 0), ErrMalformed},
		{"long string", append(append(append([]byte{}, good...), 0x48, 0), bytes.Repeat([]byte{'a'}, MaxStringSize+1)...), ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// TestReadError: an error of the underlying reader is reported as itself
// (not as a truncation) at the offset where it happened, and it is sticky.
func TestReadError(t *testing.T) {
	data, err := os.ReadFile("testdata/ddnet_07.teehistorian")
	if err != nil {
		t.Fatal(err)
	}
	errDisk := errors.New("disk gone")
	cut := int64(len(data)) * 3 / 4 // after the header
	r := NewReader(io.MultiReader(bytes.NewReader(data[:cut]), iotest.ErrReader(errDisk)))
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	var m Message
	for err == nil {
		err = r.Next(&m)
	}
	var e *Error
	if !errors.Is(err, errDisk) || !errors.As(err, &e) || e.Offset > cut || e.Offset < cut-64 {
		t.Fatalf("got %v, want %v near offset %d", err, errDisk, cut)
	}
	if again := r.Next(&m); again != err {
		t.Fatalf("second call: %v, want the same error", again)
	}
}

// FuzzReader checks that any input parses without panicking, that offsets
// and ticks only grow, and that the messages read re-encode to the bytes consumed.
func FuzzReader(f *testing.F) {
	for _, n := range []string{"ddnet_06.teehistorian", "ddnet_07.teehistorian"} {
		d, err := os.ReadFile("testdata/" + n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(d)
		f.Add(d[:len(d)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		h, err := r.ReadHeader()
		if err != nil {
			return
		}
		start := r.Offset()
		var out []byte
		var m Message
		var tick int32
		for {
			off := r.Offset()
			err := r.Next(&m)
			if err != nil {
				var e *Error
				if err != io.EOF && (!errors.As(err, &e) || e.Offset != off) {
					t.Fatalf("error %v not at message start %d", err, off)
				}
				break
			}
			if r.Offset() <= off {
				t.Fatalf("no progress at %d", off)
			}
			if m.Tick < tick {
				t.Fatalf("tick went back from %d to %d at %d", tick, m.Tick, off)
			}
			tick = m.Tick
			out = AppendMessage(out, &m)
		}
		_ = h
		// the round trip is exact except for over-long varints, which the
		// encoder writes in their short form: it never gets longer
		if len(out) > int(r.Offset()-start) {
			t.Fatalf("re-encoded %d bytes from %d", len(out), r.Offset()-start)
		}
	})
}

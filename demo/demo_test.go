package demo

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"twserver/snap"
)

var refDemos07 = []string{"07_srv_07.demo", "07_rc_07.demo", "07_mapdl_srv_07.demo", "07_on_ddnet_rc_07.demo"}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	d, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// objDeClientInfo is NETOBJTYPE_DE_CLIENTINFO of 0.7.5.
const objDeClientInfo = 13

// TestReadReference07 reads the 0.7.5 reference demos to the end and checks
// their structure: header, increasing ticks, a keyframe first and at least
// every 250 ticks, De_ClientInfo items in the snapshots.
func TestReadReference07(t *testing.T) {
	for _, name := range refDemos07 {
		t.Run(name, func(t *testing.T) {
			r, ticks, err := ReadAll(readFile(t, name), snap.Sizes7)
			if err != nil {
				t.Fatal(err)
			}
			h := r.Header
			if h.Version != 4 || h.NetVersion != NetVersion07 || int(h.MapSize) != len(r.Map) || (h.Type != "server" && h.Type != "client") {
				t.Fatalf("header %+v", h)
			}
			if len(ticks) < 100 || !ticks[0].Keyframe || ticks[0].Snap == nil {
				t.Fatalf("%d ticks, first %+v", len(ticks), ticks[0])
			}
			lastKey := ticks[0].Tick
			msgs, deInfo := 0, 0
			for i, tk := range ticks {
				if i > 0 && tk.Tick <= ticks[i-1].Tick {
					t.Fatalf("tick %d after %d", tk.Tick, ticks[i-1].Tick)
				}
				if tk.Keyframe {
					lastKey = tk.Tick
				} else if tk.Tick-lastKey > KeyframeInterval {
					t.Fatalf("no keyframe for %d ticks at %d", tk.Tick-lastKey, tk.Tick)
				}
				msgs += len(tk.Messages)
				for j := 0; tk.Snap != nil && j < tk.Snap.NumItems(); j++ {
					if tk.Snap.Key(j)>>16 == objDeClientInfo {
						deInfo++
					}
				}
			}
			length := (ticks[len(ticks)-1].Tick - ticks[0].Tick) / TickSpeed
			if h.Length != length {
				t.Errorf("header length %d, ticks say %d", h.Length, length)
			}
			if deInfo == 0 || msgs == 0 {
				t.Errorf("%d De_ClientInfo items, %d messages", deInfo, msgs)
			}
			t.Logf("%s: %d ticks %d..%d, %d messages, length %d s", h.Type, len(ticks), ticks[0].Tick, ticks[len(ticks)-1].Tick, msgs, h.Length)
		})
	}
}

// TestReadDDNetChunks walks every chunk of a DDNet (version 6) demo.
func TestReadDDNetChunks(t *testing.T) {
	r, err := NewReader(readFile(t, "ddnet_srv_ddnet.demo"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Version != 6 || len(r.Header.MapSHA256) != 32 {
		t.Fatalf("header %+v", r.Header)
	}
	var c Chunk
	n := 0
	for {
		err := r.Next(&c)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("%d chunks", n)
	}
}

// TestReencodeReference feeds the snapshots and messages of the reference
// demos through Encoder and reads the result back: the same ticks, the same
// snapshots and the same messages, and keyframes where the reference rule
// puts them.
func TestReencodeReference(t *testing.T) {
	for _, name := range refDemos07 {
		t.Run(name, func(t *testing.T) {
			r, ticks, err := ReadAll(readFile(t, name), snap.Sizes7)
			if err != nil {
				t.Fatal(err)
			}
			e := NewEncoder(r.Header.Type, r.Header.MapName, r.Map, r.Header.MapCRC, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			for _, tk := range ticks {
				if err := e.Snapshot(tk.Tick, tk.Snap); err != nil {
					t.Fatal(err)
				}
				for _, m := range tk.Messages {
					if err := e.Message(m); err != nil {
						t.Fatal(err)
					}
				}
			}
			out := append([]byte(nil), e.Bytes()...)
			be.PutUint32(out[offLength:], uint32(e.Length()))
			r2, ticks2, err := ReadAll(out, snap.Sizes7)
			if err != nil {
				t.Fatal(err)
			}
			if r2.Header.MapName != r.Header.MapName || r2.Header.MapCRC != r.Header.MapCRC || !bytes.Equal(r2.Map, r.Map) ||
				r2.Header.Length != r.Header.Length || r2.Header.Timestamp != "2026-01-02_03-04-05" {
				t.Fatalf("header %+v vs %+v", r2.Header, r.Header)
			}
			if len(ticks2) != len(ticks) {
				t.Fatalf("%d ticks, want %d", len(ticks2), len(ticks))
			}
			for i := range ticks {
				a, b := ticks[i], ticks2[i]
				if a.Tick != b.Tick || !a.Snap.Equal(b.Snap) || len(a.Messages) != len(b.Messages) {
					t.Fatalf("tick %d differs", a.Tick)
				}
				for j := range a.Messages {
					if !bytes.Equal(a.Messages[j], b.Messages[j]) {
						t.Fatalf("tick %d message %d differs", a.Tick, j)
					}
				}
				if a.Keyframe != b.Keyframe && name != "07_rc_07.demo" && name != "07_on_ddnet_rc_07.demo" {
					t.Errorf("tick %d keyframe %v, reference %v", a.Tick, b.Keyframe, a.Keyframe)
				}
			}
			// byte for byte the reference file, except the timestamp
			ref := readFile(t, name)
			copy(out[offTimestamp:offTimestamp+20], ref[offTimestamp:offTimestamp+20])
			if !bytes.Equal(out, ref) {
				i := 0
				for i < min(len(out), len(ref)) && out[i] == ref[i] {
					i++
				}
				t.Errorf("re-encoding differs from the reference at byte %d (%d vs %d bytes)", i, len(out), len(ref))
			}
		})
	}
}

func TestPatchFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.demo")
	e := NewEncoder("server", "m", []byte("MAP"), 7, time.Now())
	var s snap.Snapshot
	_ = e.Snapshot(10, &s)
	_ = e.Snapshot(400, &s)
	e.AddMarker()
	if err := os.WriteFile(path, e.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := PatchFile(path, e.Length(), e.Markers()); err != nil {
		t.Fatal(err)
	}
	d, _ := os.ReadFile(path)
	r, err := NewReader(d)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Length != 7 || len(r.Header.Markers) != 1 || r.Header.Markers[0] != 400 || string(r.Map) != "MAP" {
		t.Fatalf("header %+v", r.Header)
	}
}

func TestCorrupt(t *testing.T) {
	good := readFile(t, "07_srv_07.demo")
	if _, err := NewReader(good[:100]); !errors.Is(err, ErrTruncated) {
		t.Errorf("short header: %v", err)
	}
	bad := append([]byte(nil), good...)
	bad[0] = 'X'
	if _, err := NewReader(bad); !errors.Is(err, ErrBadMagic) {
		t.Errorf("magic: %v", err)
	}
	// every cut of the chunk stream is an error or a clean end, never a panic
	for n := HeaderSize + 6793; n < len(good); n += 7 {
		_, _, _ = ReadAll(good[:n], snap.Sizes7)
	}
}

// TestReadAllBound: tick markers without new snapshots share the previous
// snapshot instead of copying it, and what ReadAll holds is bounded.
func TestReadAllBound(t *testing.T) {
	s := oneItemSnapshot(t, 1000)
	e := NewEncoder("server", "m", []byte("MAP"), 7, time.Unix(0, 0))
	for tick := int32(1); tick <= 200; tick++ {
		if err := e.Snapshot(tick, &s); err != nil { // one keyframe, then empty deltas (not written)
			t.Fatal(err)
		}
	}
	_, ticks, err := ReadAll(e.Bytes(), snap.Sizes7)
	if err != nil || len(ticks) != 200 {
		t.Fatalf("%d ticks, %v", len(ticks), err)
	}
	for _, tk := range ticks {
		if tk.Snap != ticks[0].Snap || !tk.Snap.Equal(&s) {
			t.Fatalf("tick %d: snapshot not shared with the keyframe", tk.Tick)
		}
	}
	// the 200 markers (one byte each but a Tick in memory) count too
	if _, _, err := readAll(e.Bytes(), snap.Sizes7, s.Size()+199*tickHeld); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a marker over the bound: %v", err)
	}
	_ = e.Message([]byte{1, 2, 3, 4, 5})
	if _, _, err := readAll(e.Bytes(), snap.Sizes7, s.Size()+200*tickHeld+4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the bound: %v", err)
	}
	if _, _, err := readAll(e.Bytes(), snap.Sizes7, s.Size()+200*tickHeld+8); err != nil {
		t.Fatalf("at the bound: %v", err)
	}
}

// FuzzReadAll: arbitrary bytes never panic, and the complete ticks read
// (all of them, or all but the last before an error) re-encode to the same
// ticks, snapshots and messages.
func FuzzReadAll(f *testing.F) {
	for _, n := range refDemos07[:2] {
		d := readFile(f, n)
		f.Add(d[:min(len(d), 9000)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, ticks, err := ReadAll(data, snap.Sizes7)
		if err != nil && len(ticks) > 0 {
			ticks = ticks[:len(ticks)-1] // the chunk that failed belongs to the last tick
		}
		if r == nil || len(ticks) == 0 {
			return
		}
		e := NewEncoder("server", r.Header.MapName, r.Map, r.Header.MapCRC, time.Unix(0, 0))
		for _, tk := range ticks {
			if tk.Snap == nil || tk.Tick < 0 {
				return
			}
			if e.Snapshot(tk.Tick, tk.Snap) != nil {
				return
			}
			for _, m := range tk.Messages {
				if e.Message(m) != nil {
					return
				}
			}
		}
		_, ticks2, err := ReadAll(e.Bytes(), snap.Sizes7)
		if err != nil || len(ticks2) != len(ticks) {
			t.Fatalf("re-read: %v, %d ticks of %d", err, len(ticks2), len(ticks))
		}
		for i := range ticks {
			a, b := &ticks[i], &ticks2[i]
			if a.Tick != b.Tick || !a.Snap.Equal(b.Snap) || len(a.Messages) != len(b.Messages) {
				t.Fatalf("tick %d differs after re-encoding", a.Tick)
			}
			for j := range a.Messages {
				if !bytes.Equal(a.Messages[j], b.Messages[j]) {
					t.Fatalf("tick %d message %d differs", a.Tick, j)
				}
			}
		}
	})
}

// TestMessagesBeforeFirstTick: a message recorded before the first tick
// marker (the real 0.7.5 client writes one when it starts recording between
// a message and the next snapshot) belongs to the first tick; a snapshot
// there is malformed.
func TestMessagesBeforeFirstTick(t *testing.T) {
	s := oneItemSnapshot(t, 4)
	early, later := []byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{9, 10, 11, 12}

	e := NewEncoder("client", "m", []byte("MAP"), 7, time.Unix(0, 0))
	if err := e.chunk(ChunkMessage, []int32{0x04030201, 0x08070605}); err != nil {
		t.Fatal(err)
	}
	if err := e.Snapshot(5, &s); err != nil {
		t.Fatal(err)
	}
	if err := e.Message(later); err != nil {
		t.Fatal(err)
	}
	if err := e.Snapshot(6, &s); err != nil {
		t.Fatal(err)
	}
	_, ticks, err := ReadAll(e.Bytes(), snap.Sizes7)
	if err != nil || len(ticks) != 2 {
		t.Fatalf("%d ticks, %v", len(ticks), err)
	}
	m := ticks[0].Messages
	if ticks[0].Tick != 5 || len(m) != 2 || !bytes.Equal(m[0], early) || !bytes.Equal(m[1], later) || len(ticks[1].Messages) != 0 {
		t.Fatalf("first tick %d messages %v, second %v", ticks[0].Tick, m, ticks[1].Messages)
	}
	if !ticks[0].Snap.Equal(&s) {
		t.Fatal("first tick's snapshot differs")
	}

	e = NewEncoder("client", "m", []byte("MAP"), 7, time.Unix(0, 0))
	if err := e.chunk(ChunkSnapshot, AppendSnapshotInts(nil, &s)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadAll(e.Bytes(), snap.Sizes7); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a snapshot before the first tick: %v", err)
	}
}

// oneItemSnapshot returns a snapshot of one DeClientInfo item of size ints
// whose first int is 1.
func oneItemSnapshot(t *testing.T, size int) snap.Snapshot {
	t.Helper()
	var b snap.Builder
	d, err := b.NewItem(objDeClientInfo, 0, size)
	if err != nil {
		t.Fatal(err)
	}
	d[0] = 1
	var s snap.Snapshot
	b.Finish(&s)
	return s
}

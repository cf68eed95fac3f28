package capturetest

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"twserver/gamemsg"
	"twserver/netproto"
)

// TestGameMsgCaptures decodes every game message of every capture (both
// directions) with gamemsg, checks that the message uses its whole chunk and
// that encoding the decoded message reproduces the captured bytes.
//
// The DDNet server's 0.7 dialect (session07_on_ddnet.pcap) goes beyond what
// the 0.7.5 programs send, and the 0.7.5 client tolerates it: game message
// id 0 carrying a UUID (an extension the client ignores as unknown),
// Sv_TuneParams with more parameters than 0.7.5 has, and
// Sv_VoteOptionListAdd padded with empty descriptions past its count. For
// that capture unknown ids, trailing bytes and inexact re-encodings are
// counted and logged instead of failing.
func TestGameMsgCaptures(t *testing.T) {
	for _, cf := range captures07 {
		t.Run(cf.name, func(t *testing.T) {
			strict := cf.name != "session07_on_ddnet.pcap"
			var unknown, trailing, inexact int
			counts := make(map[string]int)
			var u netproto.Unpacker
			var p netproto.Packer
			forEachChunk(t, cf.name, func(cp capPacket, ci int, c netproto.Chunk) {
				id, sys, n, err := netproto.ParseMsgHeader(c.Data)
				if err != nil || sys {
					return
				}
				body := append([]byte(nil), c.Data[n:]...) // the unpacker sanitizes strings in place
				u.Reset(body)
				m, err := gamemsg.Decode(id, &u)
				if !strict && errors.Is(err, gamemsg.ErrUnknownMessage) {
					unknown++
					return
				}
				if err != nil {
					t.Errorf("packet %d chunk %d: game message %d (%s): %v: %s", cp.Index, ci, id, gamemsg.Name(id), err, fmtHex(c.Data))
					return
				}
				counts[gamemsg.Name(id)]++
				if u.Remaining() != 0 {
					trailing++
				}
				if u.Remaining() != 0 && strict {
					t.Errorf("packet %d chunk %d: %s leaves %d bytes: %s", cp.Index, ci, gamemsg.Name(id), u.Remaining(), fmtHex(c.Data))
				}
				p.Reset()
				if err := gamemsg.Encode(&p, m); err != nil || p.Err() != nil {
					t.Errorf("packet %d chunk %d: re-encoding %s: %v %v", cp.Index, ci, gamemsg.Name(id), err, p.Err())
					return
				}
				if !bytes.Equal(p.Bytes(), c.Data) {
					inexact++
				}
				if !bytes.Equal(p.Bytes(), c.Data) && strict {
					t.Errorf("packet %d chunk %d: %s re-encodes differently:\n got %s\nwant %s", cp.Index, ci, gamemsg.Name(id), fmtHex(p.Bytes()), fmtHex(c.Data))
				}
			})
			names := make([]string, 0, len(counts))
			for k, v := range counts {
				names = append(names, fmt.Sprintf("%s %d", k, v))
			}
			sort.Strings(names)
			t.Logf("game messages: %s; unknown ids %d, with trailing bytes %d, re-encoded differently %d", strings.Join(names, ", "), unknown, trailing, inexact)
			if len(counts) == 0 && cf.name != "twinfo_06_07.pcap" {
				t.Error("no game messages")
			}
		})
	}
}

// forEachChunk calls fn for every chunk of every 0.7 connection datagram of a
// capture, in capture order.
func forEachChunk(t testing.TB, name string, fn func(cp capPacket, ci int, c netproto.Chunk)) {
	t.Helper()
	var buf []byte
	for _, cp := range load07(t, name) {
		if netproto.IsConnless(cp.Payload) {
			continue
		}
		hdr, raw, err := netproto.ParsePacket(cp.Payload)
		if err != nil {
			t.Fatalf("packet %d: %v", cp.Index, err)
		}
		if hdr.Flags&netproto.FlagControl != 0 {
			continue
		}
		payload, err := netproto.DecodePayload(buf[:0], hdr, raw)
		if err != nil {
			t.Fatalf("packet %d: %v", cp.Index, err)
		}
		if hdr.Flags&netproto.FlagCompression != 0 {
			buf = payload[:0]
		}
		var cr netproto.ChunkReader
		cr.Reset(payload, int(hdr.NumChunks))
		ci := 0
		for c, ok := cr.Next(); ok; c, ok = cr.Next() {
			fn(cp, ci, c)
			ci++
		}
		if err := cr.Err(); err != nil {
			t.Fatalf("packet %d: %v", cp.Index, err)
		}
	}
}

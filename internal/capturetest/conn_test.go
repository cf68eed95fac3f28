package capturetest

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"twserver/netproto"
)

// relModel is the reference receive rule of the 0.7 reliable layer (spec
// A1.6) for one side of a conversation: the ack sanity check against what
// this side has sent, then in-order delivery of vital chunks.
type relModel struct {
	ack, peerAck, sent int
}

// feed applies one data or control packet and returns whether it is
// accepted and the chunks it delivers.
func (m *relModel) feed(p refPacket, chunks []refChunk) (bool, [][]byte) {
	if m.sent >= m.peerAck {
		if p.ack < m.peerAck || p.ack > m.sent {
			return false, nil
		}
	} else if p.ack < m.peerAck && p.ack > m.sent {
		return false, nil
	}
	m.peerAck = p.ack
	var out [][]byte
	for _, c := range chunks {
		if c.flags&1 == 0 {
			out = append(out, c.data)
			continue
		}
		if c.seq == (m.ack+1)%netproto.MaxSequence {
			m.ack = c.seq
			out = append(out, c.data)
		}
	}
	return true, out
}

// side is one peer of a replayed conversation: a netproto.Conn that receives
// what the real peer received and mirrors what it sent, and the model.
type side struct {
	conn  netproto.Conn
	model relModel
	buf   []byte
}

func (s *side) drain() {
	for {
		var ok bool
		if s.buf, ok = s.conn.Poll(s.buf[:0]); !ok {
			return
		}
	}
}

// connStats are the figures of the Conn replay of one capture.
type connStats struct {
	conversations, fed, rejected, delivered, vitalSent int
}

// TestConnCaptures replays every conversation of every capture through a
// pair of netproto.Conn: a client Conn (Connect) and a server Conn (Accept
// with the tokens of the handshake). Each captured datagram is fed to the
// Conn of its receiver, after the Conn of its sender has sent the same new
// vital messages (so sequence numbers and acks line up). Each Feed must agree
// with the reference receive rule (accept or reject, the chunks delivered and
// the ack), and the conversation must reach the states the real peers did.
func TestConnCaptures(t *testing.T) {
	h, err := loadRefHuff()
	if err != nil {
		t.Fatal(err)
	}
	for _, cf := range captures07 {
		t.Run(cf.name, func(t *testing.T) {
			type conv struct{ client, server *side }
			convs := make(map[flow]*conv) // keyed by the client->server flow
			var st connStats
			var start time.Duration
			for i, cp := range load07(t, cf.name) {
				if netproto.IsConnless(cp.Payload) {
					continue
				}
				now := time.Duration(cp.Time.UnixNano())
				if i == 0 {
					start = now
				}
				now -= start
				key := cp.flow
				if !cp.toServer {
					key = flow{cp.flow.dst, cp.flow.src}
				}
				c := convs[key]
				if c == nil {
					c = &conv{client: new(side), server: new(side)}
					convs[key] = c
				}
				from, to := c.client, c.server
				if !cp.toServer {
					from, to = c.server, c.client
				}
				p, err := refParsePacket(h, cp.Payload)
				if err != nil {
					t.Fatal(err)
				}
				hdr, raw, err := netproto.ParsePacket(cp.Payload)
				if err != nil {
					t.Fatal(err)
				}
				payload, err := netproto.DecodePayload(nil, hdr, raw)
				if err != nil {
					t.Fatal(err)
				}
				if hdr.Flags&netproto.FlagControl != 0 {
					ctl, err := netproto.ParseControl(payload)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case ctl.Type == netproto.CtrlToken && hdr.Token == netproto.TokenNone:
						// The token request: the client starts; the server answers statelessly.
						c.client.conn.Connect(now, ctl.Token)
						c.client.drain()
						st.conversations++
						continue
					case ctl.Type == netproto.CtrlConnect:
						// The CONNECT is handled by the server's slot table, not a Conn.
						c.server.conn.Accept(now, hdr.Token, ctl.Token)
						c.server.drain()
						continue
					}
				} else {
					// Mirror the sender: send every vital message it sent for the first time.
					chunks, err := refChunks(p)
					if err != nil {
						t.Fatal(err)
					}
					for _, ch := range chunks {
						if ch.flags&1 == 0 || ch.seq != (from.model.sent+1)%netproto.MaxSequence {
							continue
						}
						if err := from.conn.Send(now, ch.data, netproto.SendVital); err != nil {
							t.Fatalf("packet %d: mirrored Send of seq %d: %v (state %v)", cp.Index, ch.seq, err, from.conn.State())
						}
						from.model.sent = ch.seq
						st.vitalSent++
						if int(from.conn.Sequence()) != ch.seq {
							t.Fatalf("packet %d: Conn numbered the chunk %d, the capture %d", cp.Index, from.conn.Sequence(), ch.seq)
						}
					}
					from.conn.Flush(now)
					from.drain()
				}
				var chunks []refChunk
				if hdr.Flags&netproto.FlagControl == 0 {
					chunks, _ = refChunks(p)
				}
				accepted, want := to.model.feed(p, chunks)
				err = to.conn.Feed(now, hdr, payload)
				st.fed++
				var got [][]byte
				for ch, ok := to.conn.Recv(); ok; ch, ok = to.conn.Recv() {
					got = append(got, ch.Data)
				}
				to.drain()
				switch {
				case !accepted:
					st.rejected++
					if !errors.Is(err, netproto.ErrBadAck) {
						t.Errorf("packet %d: the reference rejects the ack %d, Feed says %v", cp.Index, p.ack, err)
					}
				case err != nil:
					t.Errorf("packet %d: Feed: %v (state %v): %s", cp.Index, err, to.conn.State(), fmtHex(cp.Payload[:min(len(cp.Payload), 16)]))
				default:
					st.delivered += len(got)
					if len(got) != len(want) {
						t.Errorf("packet %d: Conn delivers %d chunks, reference %d", cp.Index, len(got), len(want))
					} else {
						for j := range got {
							if !bytes.Equal(got[j], want[j]) {
								t.Errorf("packet %d: chunk %d differs from the reference delivery", cp.Index, j)
							}
						}
					}
					if int(to.conn.Ack()) != to.model.ack {
						t.Errorf("packet %d: Conn ack %d, reference %d", cp.Index, to.conn.Ack(), to.model.ack)
					}
				}
			}
			for key, c := range convs {
				t.Logf("conversation %v: client %v (%q), server %v (%q); client sent %d vital, server %d",
					key, c.client.conn.State(), c.client.conn.Reason(), c.server.conn.State(), c.server.conn.Reason(), c.client.model.sent, c.server.model.sent)
				// Every session ends with the client's CLOSE.
				if c.client.model.sent > 0 && (c.client.conn.State() != netproto.StateOnline || !c.server.conn.ClosedByPeer()) {
					t.Errorf("conversation %v: client Conn ends %v, server Conn %v (closed by peer %v)", key, c.client.conn.State(), c.server.conn.State(), c.server.conn.ClosedByPeer())
				}
			}
			t.Logf("%d conversations, %d datagrams fed, %d rejected by the ack rule, %d chunks delivered, %d vital messages mirrored", st.conversations, st.fed, st.rejected, st.delivered, st.vitalSent)
			if st.conversations != len(convs) || st.fed == 0 {
				t.Errorf("%d conversations opened by a token request of %d, %d datagrams fed", st.conversations, len(convs), st.fed)
			}
		})
	}
}

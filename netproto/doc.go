// Package netproto implements the Teeworlds wire protocol without any I/O:
// the 0.7 dialect, with 0.6/DDNet siblings in the *6.go files. It has no
// sockets, goroutines, clocks, logging or mutable globals.
//
// # Layers
//
//   - varint.go: AppendInt / ParseInt, the packed int (spec A2.2).
//   - packer.go: Packer (fixed 2 KiB buffer, sticky ErrBufferFull) and
//     Unpacker (sticky errors, slices alias the input; GetStringBytes
//     sanitizes in place, GetString copies).
//   - huffman.go: HuffmanCompress / HuffmanDecompress with the reference
//     frequency table; output is byte-identical to the reference encoder,
//     decompression is bounded by its max argument and strict about a
//     missing EOF symbol.
//   - packet7.go: PacketHeader + ParsePacket / AppendPacket /
//     AppendPacketCompressed / DecodePayload, ConnlessHeader +
//     ParseConnless / AppendConnless, ChunkHeader + ParseChunkHeader /
//     AppendChunkHeader, and the ChunkReader iterator. packet6.go has the
//     0.6 header and chunk header.
//   - control.go: control message ids (CtrlKeepAlive ... CtrlToken),
//     ParseControl and the Append* helpers for token request/reply,
//     CONNECT, ACCEPT, KEEPALIVE and CLOSE, plus the reference reasons.
//   - control6.go: Dialect (0.7, vanilla 0.6, DDNet 0.6 with the security
//     token), ParseControl6 and the 0.6 handshake builders
//     (AppendConnect6, AppendConnectAccept6, AppendClose6),
//     AppendPacket6Compressed / DecodePayload6, and Is7Packet /
//     Is7Connless, which tell the dialect of a datagram from an unknown
//     address.
//   - token.go: TokenGen, the stateless server token (keyed hash of the
//     peer IP, rotating secret, previous secret still accepted).
//   - conn.go: Conn, the sans-IO reliable connection of every dialect
//     (Accept/Connect for 0.7, Accept6/Connect6 for 0.6; FeedDatagram
//     parses in the connection's dialect; see its doc);
//     resend.go: its resend buffer and outbox.
//   - sysmsg_ids.go, sysmsg.go, sysmsg6.go: system message ids and codecs
//     (SysMsg: ID, Pack, Unpack; PackSys writes the header).
//   - limits.go: every bound and timer.
//
// # Receiving (server)
//
//	n, addr, _ := sock.ReadFromUDPAddrPort(buf)      // buf > MaxPacketSize
//	b := buf[:n]
//	if IsConnless(b) { h, payload, err := ParseConnless(b); ... }
//	h, payload, err := ParsePacket(b)                // payload aliases b
//	// unknown address: only control packets; TOKEN with h.Token == TokenNone
//	// and a padded request -> AppendTokenResponse(dst, ctl.Token, gen.Token(ip));
//	// CONNECT with gen.Check(ip, h.Token) -> conn.Accept(now, h.Token, ctl.Token)
//	raw, err := DecodePayload(scratch, h, payload)  // scratch: cap MaxPayload
//	if conn.Feed(now, h, raw) == nil {
//		for ch, ok := conn.Recv(); ok; ch, ok = conn.Recv() {
//			var u Unpacker
//			u.Reset(ch.Data)
//			id, sys := u.GetMsgHeader()
//			...
//		}
//	}
//
// # Sending
//
//	var p Packer
//	PackSys(&p, &MsgSnapSingle{Tick: t, DeltaTick: t - base, CRC: crc, Data: delta})
//	conn.Send(now, p.Bytes(), SendFlush)             // snapshots are not vital
//	conn.Update(now)                                 // every tick
//	for pkt, ok := conn.Poll(out[:0]); ok; pkt, ok = conn.Poll(out[:0]) { sock.WriteToUDPAddrPort(pkt, addr) }
//
// Decoders return sentinel errors (ErrTruncated, ErrBadHuffman, ...) and
// never panic on malformed input.
package netproto

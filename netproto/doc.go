// Package netproto implements the Teeworlds wire protocol without any I/O:
// the varint and the Packer/Unpacker, Huffman compression with the reference
// frequency table, the 0.7 packet, connless and chunk headers (with 0.6
// siblings in the *6.go files), control messages, the stateless token, the
// system message ids and codecs, and a sans-IO reliable connection (Conn)
// driven by an explicit clock.
//
// Parsers slice into their input and never copy; encoders are Append*
// functions that write into caller-owned buffers. Every bound is a named
// constant in limits.go. Nothing here panics on malformed input.
package netproto

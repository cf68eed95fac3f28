package datafile

import (
	"encoding/binary"
	"hash/adler32"
)

// This file holds a small zlib (RFC 1950) / deflate (RFC 1951) encoder whose
// output is a pure function of its input: one final block with the fixed
// Huffman code, greedy LZ77 matching over a bounded hash chain. It exists so
// that Writer output (and therefore the embedded default map and its CRC)
// does not change when the Go standard library's compressor changes. Any
// zlib inflater, including the reference client's, reads it.

const (
	lzMinMatch  = 3
	lzMaxMatch  = 258
	lzWindow    = 32768
	lzHashBits  = 15
	lzHashSize  = 1 << lzHashBits
	lzMaxChain  = 64 // candidates examined per position
	lzGoodMatch = 128
)

// Base lengths and extra bits of length codes 257..285 (RFC 1951 3.2.5).
var lengthBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
var lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
	3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}

// Base distances and extra bits of distance codes 0..29.
var distBase = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
var distExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
	7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}

// bitWriter appends bits least-significant first, as deflate requires.
type bitWriter struct {
	out   []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) bits(v uint32, n uint) {
	w.acc |= uint64(v) << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// huff writes a Huffman code of n bits; codes are defined MSB-first.
func (w *bitWriter) huff(code uint32, n uint) {
	var r uint32
	for i := uint(0); i < n; i++ {
		r = r<<1 | (code>>i)&1
	}
	w.bits(r, n)
}

func (w *bitWriter) flush() {
	if w.nbits > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc, w.nbits = 0, 0
	}
}

// literal writes literal/length symbol sym (0..285) with the fixed code.
func (w *bitWriter) literal(sym int) {
	switch {
	case sym < 144:
		w.huff(uint32(0x30+sym), 8)
	case sym < 256:
		w.huff(uint32(0x190+sym-144), 9)
	case sym < 280:
		w.huff(uint32(sym-256), 7)
	default:
		w.huff(uint32(0xc0+sym-280), 8)
	}
}

// match writes a length/distance pair.
func (w *bitWriter) match(length, dist int) {
	lc := 28
	for lc > 0 && int(lengthBase[lc]) > length {
		lc--
	}
	w.literal(257 + lc)
	w.bits(uint32(length-int(lengthBase[lc])), uint(lengthExtra[lc]))
	dc := 29
	for dc > 0 && int(distBase[dc]) > dist {
		dc--
	}
	w.huff(uint32(dc), 5)
	w.bits(uint32(dist-int(distBase[dc])), uint(distExtra[dc]))
}

func lzHash(b []byte) uint32 {
	return (uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])) * 2654435761 >> (32 - lzHashBits)
}

// appendDeflate appends a single final fixed-Huffman deflate block encoding src.
func appendDeflate(dst, src []byte) []byte {
	w := bitWriter{out: dst}
	w.bits(1, 1) // BFINAL
	w.bits(1, 2) // BTYPE = 01, fixed Huffman
	var head [lzHashSize]int32
	for i := range head {
		head[i] = -1
	}
	// prev links each position to the previous one with the same hash. A
	// chain is only followed within the window, so a ring of the window's
	// size (or the input's, rounded up to a power of two) holds every link
	// the search reads: a slot is overwritten only by a position a whole
	// window later, when its old entry is out of reach. The output is the
	// same as with one entry per input byte, at a fixed 128 KiB at most.
	ring := 1
	for ring < len(src) && ring < lzWindow {
		ring <<= 1
	}
	prev := make([]int32, ring)
	mask := ring - 1
	insert := func(p int) {
		if p+lzMinMatch <= len(src) {
			h := lzHash(src[p:])
			prev[p&mask] = head[h]
			head[h] = int32(p)
		}
	}
	for p := 0; p < len(src); {
		bestLen, bestDist := 0, 0
		if p+lzMinMatch <= len(src) {
			maxLen := min(lzMaxMatch, len(src)-p)
			cand := head[lzHash(src[p:])]
			for chain := 0; cand >= 0 && p-int(cand) <= lzWindow && chain < lzMaxChain; chain++ {
				c := int(cand)
				n := 0
				for n < maxLen && src[c+n] == src[p+n] {
					n++
				}
				if n > bestLen {
					bestLen, bestDist = n, p-c
					if n >= lzGoodMatch || n == maxLen {
						break
					}
				}
				cand = prev[c&mask]
			}
		}
		if bestLen >= lzMinMatch {
			w.match(bestLen, bestDist)
			for k := 0; k < bestLen; k++ {
				insert(p + k)
			}
			p += bestLen
			continue
		}
		w.literal(int(src[p]))
		insert(p)
		p++
	}
	w.literal(256) // end of block
	w.flush()
	return w.out
}

// compressZlib returns src as a zlib stream (deflate, 32 KiB window, with
// the Adler-32 trailer).
func compressZlib(src []byte) []byte {
	out := make([]byte, 0, 16+len(src)/4)
	out = append(out, 0x78, 0x9c) // CMF: deflate, 32K window; FLG: default level, check bits
	out = appendDeflate(out, src)
	return binary.BigEndian.AppendUint32(out, adler32.Checksum(src))
}

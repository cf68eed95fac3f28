package netproto

import (
	"math"
	"sort"
)

// huffmanFreqs are the reference byte frequencies (spec Appendix A). The EOF
// symbol (256) has frequency 1.
var huffmanFreqs = [256]uint32{
	1 << 30, 4545, 2657, 431, 1950, 919, 444, 482, 2244, 617, 838, 542, 715, 1814, 304, 240,
	754, 212, 647, 186, 283, 131, 146, 166, 543, 164, 167, 136, 179, 859, 363, 113,
	157, 154, 204, 108, 137, 180, 202, 176, 872, 404, 168, 134, 151, 111, 113, 109,
	120, 126, 129, 100, 41, 20, 16, 22, 18, 18, 17, 19, 16, 37, 13, 21,
	362, 166, 99, 78, 95, 88, 81, 70, 83, 284, 91, 187, 77, 68, 52, 68,
	59, 66, 61, 638, 71, 157, 50, 46, 69, 43, 11, 24, 13, 19, 10, 12,
	12, 20, 14, 9, 20, 20, 10, 10, 15, 15, 12, 12, 7, 19, 15, 14,
	13, 18, 35, 19, 17, 14, 8, 5, 15, 17, 9, 15, 14, 18, 8, 10,
	2173, 134, 157, 68, 188, 60, 170, 60, 194, 62, 175, 71, 148, 67, 167, 78,
	211, 67, 156, 69, 1674, 90, 174, 53, 147, 89, 181, 51, 174, 63, 163, 80,
	167, 94, 128, 122, 223, 153, 218, 77, 200, 110, 190, 73, 174, 69, 145, 66,
	277, 143, 141, 60, 136, 53, 180, 57, 142, 57, 158, 61, 166, 112, 152, 92,
	26, 22, 21, 28, 20, 26, 30, 21, 32, 27, 20, 17, 23, 21, 30, 22,
	22, 21, 27, 25, 17, 27, 23, 18, 39, 26, 15, 21, 12, 18, 18, 27,
	20, 18, 15, 19, 11, 17, 33, 12, 18, 15, 19, 18, 16, 26, 17, 18,
	9, 10, 25, 22, 22, 17, 20, 16, 6, 16, 15, 20, 14, 18, 24, 335,
}

const (
	huffmanEOF      = 256
	huffmanSymbols  = 257
	huffmanNodes    = 2*huffmanSymbols - 1
	huffmanRoot     = huffmanNodes - 1
	huffmanLUTBits  = 10
	huffmanLUTSize  = 1 << huffmanLUTBits
	huffmanMaxCode  = 24 // bound checked when the tree is built
	huffmanRefillAt = 64 - 8
)

// huffmanCode is one symbol's code: bits in emission order starting at bit 0.
type huffmanCode struct {
	bits uint32
	n    uint8
}

// huffmanLUTEntry resolves the next huffmanLUTBits input bits: either a leaf
// reached after n bits (n > 0), or the inner node reached after all of them
// (n = 0). It packs the node into the low huffmanNodeBits bits and n above
// them, so the table takes 2 kB (32 cache lines) instead of 4: fewer lines
// to load, often cold in a loop that wakes every 40 ms, and decoding about
// a tenth faster (BenchmarkHuffmanDecompress).
type huffmanLUTEntry uint16

const huffmanNodeBits = 10 // huffmanNodes < 1<<huffmanNodeBits

const _ = uint(1<<huffmanNodeBits - huffmanNodes) // fails to compile if a node id does not fit

func (e huffmanLUTEntry) node() uint16 { return uint16(e) & (1<<huffmanNodeBits - 1) }
func (e huffmanLUTEntry) n() uint      { return uint(e) >> huffmanNodeBits }

// huffmanTable is the immutable code built once from huffmanFreqs. The
// decoder's parts, lut and inner (3 kB together), come first.
type huffmanTable struct {
	lut   [huffmanLUTSize]huffmanLUTEntry
	inner [huffmanNodes - huffmanSymbols][2]uint16 // the children of inner node huffmanSymbols+i
	codes [huffmanSymbols]huffmanCode
}

// child returns the children of inner node id (id >= huffmanSymbols).
func (t *huffmanTable) child(id uint16) *[2]uint16 { return &t.inner[id-huffmanSymbols] }

var huffman = buildHuffman()

// buildHuffman reproduces the reference tree construction (spec A2.1): a list
// kept stably sorted by descending frequency; the two last entries are merged
// into a new node (child 0 = last, child 1 = second to last) that takes the
// second to last position before the list is sorted again.
func buildHuffman() *huffmanTable {
	t := new(huffmanTable)
	type entry struct {
		node uint16
		freq uint64
	}
	list := make([]entry, huffmanSymbols)
	for i := range list {
		list[i] = entry{uint16(i), 1}
		if i < 256 {
			list[i].freq = uint64(huffmanFreqs[i])
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].freq > list[j].freq })
	next := uint16(huffmanSymbols)
	for len(list) > 1 {
		a, b := list[len(list)-1], list[len(list)-2]
		*t.child(next) = [2]uint16{a.node, b.node}
		list = list[:len(list)-1]
		e := entry{next, a.freq + b.freq}
		next++
		// Stable re-sort: the merged entry moves in front of every entry
		// with a strictly smaller frequency; the rest is still sorted.
		i := len(list) - 1
		for i > 0 && list[i-1].freq < e.freq {
			list[i] = list[i-1]
			i--
		}
		list[i] = e
	}
	if next != huffmanNodes {
		panic("netproto: huffman tree has wrong node count")
	}
	var walk func(node uint16, bits uint32, n uint8)
	walk = func(node uint16, bits uint32, n uint8) {
		if node < huffmanSymbols {
			if n > huffmanMaxCode {
				panic("netproto: huffman code too long")
			}
			t.codes[node] = huffmanCode{bits, n}
			return
		}
		walk(t.child(node)[0], bits, n+1)
		walk(t.child(node)[1], bits|1<<n, n+1)
	}
	walk(huffmanRoot, 0, 0)
	for i := range t.lut {
		node := uint16(huffmanRoot)
		v := uint32(i)
		n := uint8(0)
		for n < huffmanLUTBits && node >= huffmanSymbols {
			node = t.child(node)[v&1]
			v >>= 1
			n++
		}
		if node >= huffmanSymbols {
			n = 0 // an inner node: all huffmanLUTBits bits consumed
		}
		t.lut[i] = huffmanLUTEntry(uint16(node) | uint16(n)<<huffmanNodeBits)
	}
	return t
}

// HuffmanCompress appends the Huffman encoding of src (all its bytes, then
// the EOF symbol, then one final byte with the remaining 0-7 bits, zero
// padded) to dst, exactly as the reference does. It cannot fail; the error is
// kept for symmetry with the contract and is always nil. At most
// HuffmanMaxCompressedLen(len(src)) bytes are appended.
func HuffmanCompress(dst, src []byte) ([]byte, error) {
	out, _ := huffmanCompress(dst, src, -1)
	return out, nil
}

// huffmanCompress is HuffmanCompress that gives up (returning false and a
// dst of unspecified length) once more than limit bytes were appended; a
// negative limit means no limit.
func huffmanCompress(dst, src []byte, limit int) ([]byte, bool) {
	var acc uint64
	var n uint
	codes := &huffman.codes
	end := len(dst) + limit
	for _, c := range src {
		code := codes[c]
		acc |= uint64(code.bits) << n
		n += uint(code.n)
		if n >= 32 {
			if limit >= 0 && len(dst)+4 > end {
				return dst, false
			}
			dst = append(dst, byte(acc), byte(acc>>8), byte(acc>>16), byte(acc>>24))
			acc >>= 32
			n -= 32
		}
	}
	code := codes[huffmanEOF]
	acc |= uint64(code.bits) << n
	n += uint(code.n)
	for n >= 8 {
		dst = append(dst, byte(acc))
		acc >>= 8
		n -= 8
	}
	dst = append(dst, byte(acc))
	if limit >= 0 && len(dst) > end {
		return dst, false
	}
	return dst, true
}

// HuffmanMaxCompressedLen bounds the compressed size of n input bytes.
func HuffmanMaxCompressedLen(n int) int {
	return (n*huffmanMaxCode+huffmanMaxCode)/8 + 1
}

// HuffmanDecompress decodes src and appends the result to dst. Decoding stops
// at the EOF symbol; bytes after it are ignored. It fails with
// ErrHuffmanOverflow if more than maxOut bytes would be appended (a negative
// maxOut allows none) and with ErrBadHuffman if src ends before the EOF
// symbol. On error the returned slice holds what was decoded so far.
func HuffmanDecompress(dst, src []byte, maxOut int) ([]byte, error) {
	t := huffman
	var acc uint64
	var n uint
	pos := 0
	limit := len(dst) + max(maxOut, 0)
	if limit < len(dst) { // len(dst)+maxOut overflowed: no bound beyond int
		limit = math.MaxInt
	}
	for {
		if n < huffmanMaxCode {
			for n <= huffmanRefillAt && pos < len(src) {
				acc |= uint64(src[pos]) << n
				pos++
				n += 8
			}
		}
		var node uint16
		if n >= huffmanLUTBits {
			e := t.lut[acc&(huffmanLUTSize-1)]
			node = e.node()
			if k := e.n(); k > 0 {
				acc >>= k
				n -= k
			} else {
				acc >>= huffmanLUTBits
				n -= huffmanLUTBits
			}
		} else {
			node = huffmanRoot
		}
		for node >= huffmanSymbols {
			if n == 0 {
				return dst, ErrBadHuffman
			}
			node = t.child(node)[acc&1]
			acc >>= 1
			n--
		}
		if node == huffmanEOF {
			return dst, nil
		}
		if len(dst) >= limit {
			return dst, ErrHuffmanOverflow
		}
		dst = append(dst, byte(node))
	}
}

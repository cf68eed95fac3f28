// Package datafile reads and writes the Teeworlds "datafile" container that
// map files use (version 4, and version 3 for reading).
//
// A datafile holds typed items (small int32 records addressed by type and id)
// and data blobs (zlib-compressed in version 4, raw in version 3). The layout
// is described in the world specification, section 1.1.
//
// Load validates the whole header, the item-type table and all offsets up
// front and never panics on malformed input; data blobs are decompressed
// lazily on first access, each bounded by Limits so that a decompression bomb
// yields an error instead of exhausting memory.
//
// Writer produces deterministic bytes: items ordered by ascending type (then
// insertion order), and data compressed by this package's own fixed-Huffman
// deflate encoder, whose output depends only on the input bytes.
package datafile

import "errors"

// Header layout constants (world spec 1.1).
const (
	// HeaderSize is the size in bytes of the fixed file header
	// (magic, version, size, swaplen and the five counts).
	HeaderSize = 36
	// ItemHeaderSize is the size of the header in front of every item
	// payload: int32 type_and_id and int32 size.
	ItemHeaderSize = 8
	// MaxType is the largest item type a type_and_id word can express.
	MaxType = 0xffff
	// MaxID is the largest item id a type_and_id word can express.
	MaxID = 0xffff
)

// Limits bounds the resources Load and File.Data may use. The zero value is
// not useful; start from DefaultLimits.
type Limits struct {
	// MaxFileSize is the largest accepted file, in bytes.
	MaxFileSize int
	// MaxItems is the largest accepted item count (num_items).
	MaxItems int
	// MaxData is the largest accepted data blob count (num_data).
	MaxData int
	// MaxDataSize is the largest decompressed size of one data blob.
	MaxDataSize int
	// MaxTotalDataSize bounds the sum of decompressed sizes of all blobs
	// a File decompresses over its lifetime.
	MaxTotalDataSize int64
}

// Default resource bounds.
const (
	// DefaultMaxFileSize is the default Limits.MaxFileSize (128 MiB).
	DefaultMaxFileSize = 128 << 20
	// DefaultMaxItems is the default Limits.MaxItems.
	DefaultMaxItems = 1 << 16
	// DefaultMaxData is the default Limits.MaxData.
	DefaultMaxData = 1 << 16
	// DefaultMaxDataSize is the default Limits.MaxDataSize (64 MiB, enough
	// for a 4096x4096 RGBA image).
	DefaultMaxDataSize = 64 << 20
	// DefaultMaxTotalDataSize is the default Limits.MaxTotalDataSize (256 MiB).
	DefaultMaxTotalDataSize = 256 << 20
)

// DefaultLimits returns the bounds Load uses.
func DefaultLimits() Limits {
	return Limits{
		MaxFileSize:      DefaultMaxFileSize,
		MaxItems:         DefaultMaxItems,
		MaxData:          DefaultMaxData,
		MaxDataSize:      DefaultMaxDataSize,
		MaxTotalDataSize: DefaultMaxTotalDataSize,
	}
}

// Errors returned by Load, File.Data and Writer. Returned errors wrap one of
// these with details; test with errors.Is.
var (
	// ErrBadMagic: the file does not start with "DATA" (or "ATAD").
	ErrBadMagic = errors.New("datafile: bad magic")
	// ErrVersion: the header version is neither 3 nor 4.
	ErrVersion = errors.New("datafile: unsupported version")
	// ErrTruncated: a declared structure extends past the end of the file.
	ErrTruncated = errors.New("datafile: truncated")
	// ErrCorrupt: counts, offsets or the item-type table are inconsistent.
	ErrCorrupt = errors.New("datafile: corrupt")
	// ErrLimit: the file or a blob exceeds a configured Limits bound.
	ErrLimit = errors.New("datafile: limit exceeded")
	// ErrBadZlib: a data blob is not a valid zlib stream.
	ErrBadZlib = errors.New("datafile: bad zlib data")
	// ErrDataSize: a data blob does not inflate to its declared size.
	ErrDataSize = errors.New("datafile: data size mismatch")
	// ErrIndex: an item or data index is out of range.
	ErrIndex = errors.New("datafile: index out of range")
)

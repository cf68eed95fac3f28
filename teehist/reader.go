package teehist

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// Reader bounds: a malformed file cannot make the reader allocate more.
const (
	// MaxHeaderSize bounds the header JSON.
	MaxHeaderSize = 1 << 20
	// MaxDataSize bounds the raw payload of one MESSAGE or EX message.
	MaxDataSize = 1 << 16
	// MaxStringSize bounds one string (drop reason, command, argument).
	MaxStringSize = 1 << 14
	// MaxArgs bounds the arguments of one CONSOLE_COMMAND.
	MaxArgs = 256
)

// Reader errors. Every error returned by Reader is an *Error wrapping one of
// them, ErrBadHeader, io.ErrUnexpectedEOF (no FINISH) or the error of the
// underlying io.Reader.
var (
	ErrBadMagic  = errors.New("teehist: not a teehistorian file")
	ErrTruncated = errors.New("teehist: truncated")
	ErrMalformed = errors.New("teehist: malformed message")
	ErrTooLarge  = errors.New("teehist: size over limit")
)

// Error is a read error at a byte offset of the file.
type Error struct {
	Offset int64 // offset of the message (or header) being read
	Err    error
}

// Error returns "offset N: " and the wrapped error.
func (e *Error) Error() string { return fmt.Sprintf("offset %d: %v", e.Offset, e.Err) }

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Err }

// Reader reads a teehistorian file: ReadHeader once, then Next until FINISH
// (io.EOF after it) or an error. A file that ends cleanly between messages
// without FINISH yields io.ErrUnexpectedEOF wrapped in an *Error. Errors
// are sticky: after one, Next returns it again without reading.
type Reader struct {
	r        *bufio.Reader
	off      int64
	tick     int32
	lastCID  int32
	finished bool
	err      error
	data     []byte
	strs     []byte
	args     []string
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), lastCID: MaxClients}
}

// Point is where a Reader is in a file, between two messages: what a
// Reader started there (Resume) needs to read on.
type Point struct {
	Offset  int64 // bytes read from the file's start
	Tick    int32 // the tick of the last message read
	LastCID int32 // the implicit tick rule's last player record
}

// Point returns where r is (after the last message Next returned).
func (r *Reader) Point() Point { return Point{Offset: r.off, Tick: r.tick, LastCID: r.lastCID} }

// Resume returns a Reader reading on from p in a file whose bytes from
// p.Offset on rd reads (the file opened and moved to p.Offset): a Point
// another Reader of the same file returned.
func Resume(rd io.Reader, p Point) *Reader {
	r := NewReader(rd)
	r.off, r.tick, r.lastCID = p.Offset, p.Tick, p.LastCID
	return r
}

// Offset returns the number of bytes consumed so far.
func (r *Reader) Offset() int64 { return r.off }

// ReadHeader reads the magic UUID and the JSON header.
func (r *Reader) ReadHeader() (*Header, error) {
	var magic UUID
	n, err := io.ReadFull(r.r, magic[:])
	r.off += int64(n)
	if err != nil {
		return nil, &Error{0, readErr(err)}
	}
	if magic != Magic {
		return nil, &Error{0, ErrBadMagic}
	}
	var js []byte
	for {
		c, err := r.r.ReadByte()
		if err != nil {
			return nil, &Error{r.off, readErr(err)}
		}
		r.off++
		if c == 0 {
			break
		}
		if len(js) >= MaxHeaderSize {
			return nil, &Error{16, ErrTooLarge}
		}
		js = append(js, c)
	}
	h, err := ParseHeaderJSON(js)
	if err != nil {
		return nil, &Error{16, err}
	}
	return h, nil
}

// readErr maps a read error: the end of the input is ErrTruncated, any
// other error (a failing disk, a directory) is kept as it is.
func readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}

func (r *Reader) int() (int32, error) {
	var b [5]byte
	for i := range b {
		c, err := r.r.ReadByte()
		if err != nil {
			return 0, readErr(err)
		}
		r.off++
		b[i] = c
		if c&0x80 == 0 || i == 4 {
			v, _, err := parseInt(b[:i+1])
			return v, err
		}
	}
	return 0, ErrMalformed
}

func (r *Reader) raw(dst []byte, n int32) ([]byte, error) {
	if n < 0 {
		return nil, ErrMalformed
	}
	if n > MaxDataSize {
		return nil, ErrTooLarge
	}
	dst = append(dst[:0], make([]byte, n)...)
	m, err := io.ReadFull(r.r, dst)
	r.off += int64(m)
	if err != nil {
		return nil, readErr(err)
	}
	return dst, nil
}

func (r *Reader) str() (string, error) {
	r.strs = r.strs[:0]
	for {
		c, err := r.r.ReadByte()
		if err != nil {
			return "", readErr(err)
		}
		r.off++
		if c == 0 {
			return string(r.strs), nil
		}
		if len(r.strs) >= MaxStringSize {
			return "", ErrTooLarge
		}
		r.strs = append(r.strs, c)
	}
}

// Next reads the next message into m. It returns io.EOF after FINISH has
// been returned, and an *Error for malformed or truncated input.
func (r *Reader) Next(m *Message) error {
	if r.err != nil {
		return r.err
	}
	err := r.next(m)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return err
}

func (r *Reader) next(m *Message) error {
	if r.finished {
		return io.EOF
	}
	start := r.off
	*m = Message{Offset: start}
	if _, err := r.r.Peek(1); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return &Error{start, err}
	}
	fail := func(err error) error { return &Error{start, err} }
	id, err := r.int()
	if err != nil {
		return fail(err)
	}
	cid := func() (int32, error) { return r.int() }
	switch {
	case id >= 0:
		if id >= MaxClients {
			return fail(fmt.Errorf("%w: client id %d", ErrMalformed, id))
		}
		m.Kind, m.CID = KindPlayerDiff, id
		if m.X, err = r.int(); err == nil {
			m.Y, err = r.int()
		}
		if err != nil {
			return fail(err)
		}
		if err := r.playerTick(id); err != nil {
			return fail(err)
		}
	default:
		m.Kind = Kind(id)
		switch m.Kind {
		case KindFinish:
			r.finished = true
		case KindTickSkip:
			if m.DT, err = r.int(); err != nil {
				return fail(err)
			}
			if m.DT < 0 || int64(r.tick)+int64(m.DT)+1 > math.MaxInt32 {
				return fail(fmt.Errorf("%w: tick skip %d from tick %d", ErrMalformed, m.DT, r.tick))
			}
			r.tick += m.DT + 1
			r.lastCID = -1
		case KindPlayerNew:
			if m.CID, err = cid(); err == nil {
				if m.X, err = r.int(); err == nil {
					m.Y, err = r.int()
				}
			}
			if err == nil {
				err = r.playerCID(m.CID)
			}
		case KindPlayerOld:
			if m.CID, err = cid(); err == nil {
				err = r.playerCID(m.CID)
			}
		case KindInputDiff, KindInputNew:
			if m.CID, err = cid(); err == nil {
				for i := range m.Input {
					if m.Input[i], err = r.int(); err != nil {
						break
					}
				}
			}
		case KindMessage:
			var n int32
			if m.CID, err = cid(); err == nil {
				if n, err = r.int(); err == nil {
					r.data, err = r.raw(r.data, n)
					m.Data = r.data
				}
			}
		case KindJoin:
			m.CID, err = cid()
		case KindDrop:
			if m.CID, err = cid(); err == nil {
				m.Reason, err = r.str()
			}
		case KindConsoleCommand:
			err = r.console(m)
		case KindEx:
			var n int32
			if _, err = io.ReadFull(r.r, m.UUID[:]); err != nil {
				err = readErr(err)
			} else {
				r.off += 16
				if n, err = r.int(); err == nil {
					r.data, err = r.raw(r.data, n)
					m.Data = r.data
					m.Ex = ExByUUID(m.UUID)
				}
			}
		default:
			return fail(fmt.Errorf("%w: unknown message id %d", ErrMalformed, id))
		}
		if err != nil {
			return fail(err)
		}
	}
	if m.Kind == KindPlayerNew || m.Kind == KindPlayerOld {
		if err := r.playerTick(m.CID); err != nil {
			return fail(err)
		}
	}
	m.Tick = r.tick
	return nil
}

func (r *Reader) playerCID(cid int32) error {
	if cid < 0 || cid >= MaxClients {
		return fmt.Errorf("%w: client id %d", ErrMalformed, cid)
	}
	return nil
}

// playerTick applies the implicit tick rule for a player record of cid.
func (r *Reader) playerTick(cid int32) error {
	if cid <= r.lastCID {
		if r.tick == math.MaxInt32 {
			return fmt.Errorf("%w: tick past %d", ErrMalformed, r.tick)
		}
		r.tick++
	}
	r.lastCID = cid
	return nil
}

func (r *Reader) console(m *Message) error {
	var err error
	if m.CID, err = r.int(); err != nil {
		return err
	}
	if m.Flags, err = r.int(); err != nil {
		return err
	}
	if m.Cmd, err = r.str(); err != nil {
		return err
	}
	n, err := r.int()
	if err != nil {
		return err
	}
	if n < 0 || n > MaxArgs {
		return fmt.Errorf("%w: %d console arguments", ErrMalformed, n)
	}
	r.args = r.args[:0]
	for range n {
		a, err := r.str()
		if err != nil {
			return err
		}
		r.args = append(r.args, a)
	}
	m.Args = r.args
	return nil
}

// ExField is one decoded field of an extension payload.
type ExField struct {
	Type byte // 'i', 's', 'u' or 'r'
	Int  int32
	Str  string
	UUID UUID
	Raw  []byte
}

// DecodeEx decodes an EX payload with the layout of its kind. Unknown kinds
// return one raw field.
func DecodeEx(k ExKind, data []byte) ([]ExField, error) { return AppendEx(nil, k, data) }

// AppendEx is DecodeEx appending the fields to out (a reused slice keeps
// the replay free of allocations for integer and UUID fields).
func AppendEx(out []ExField, k ExKind, data []byte) ([]ExField, error) {
	layout := "r"
	if k > ExUnknown && k < numExKinds {
		layout = ExTable[k].Layout
	}
	for i := 0; i < len(layout); i++ {
		t := layout[i]
		f := ExField{Type: t}
		switch t {
		case 'i':
			v, n, err := parseInt(data)
			if err != nil {
				return out, err
			}
			f.Int, data = v, data[n:]
		case 's':
			i := bytes.IndexByte(data, 0)
			if i < 0 {
				return out, ErrTruncated
			}
			f.Str, data = string(data[:i]), data[i+1:]
		case 'u':
			if len(data) < 16 {
				return out, ErrTruncated
			}
			copy(f.UUID[:], data)
			data = data[16:]
		case 'r':
			f.Raw, data = data, nil
		}
		out = append(out, f)
	}
	if len(data) != 0 {
		return out, fmt.Errorf("%w: %d trailing bytes in extension payload", ErrMalformed, len(data))
	}
	return out, nil
}

package gamemsg

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// Writer is the part of netproto.Packer that messages are written through.
// Errors are sticky in the Packer and checked by its owner.
type Writer interface {
	AddInt(v int32)
	AddString(s string)
}

// Reader is the part of netproto.Unpacker that messages are read from. GetInt
// and GetString follow the packer rules of net.md A2.3: a sticky error, and
// GetString returns "" without an error at the end of the buffer and applies
// the default sanitizing (bytes < 32 except \t \n \r become spaces).
type Reader interface {
	GetInt() int32
	GetString() string
	Err() error
}

// Errors returned by Encode and Decode.
var (
	// ErrUnknownMessage: the id is not a game message this package can decode
	// (out of range, or Sv_ExtraProjectile which 0.7.5 never sends).
	ErrUnknownMessage = errors.New("gamemsg: unknown message id")
	// ErrTruncated: the reader ran out of bytes (or reported another error)
	// before every field was read.
	ErrTruncated = errors.New("gamemsg: truncated message")
	// ErrOutOfRange: a field is outside the range the 0.7.5 programs accept;
	// the error is a *RangeError that unwraps to this sentinel.
	ErrOutOfRange = errors.New("gamemsg: field out of range")
)

// RangeError names the field that failed a range check.
type RangeError struct {
	Msg   int32 // message id
	Field string
	Value int32
}

// Error implements error.
func (e *RangeError) Error() string {
	return "gamemsg: " + Name(e.Msg) + "." + e.Field + " out of range: " + strconv.Itoa(int(e.Value))
}

// Unwrap returns ErrOutOfRange.
func (e *RangeError) Unwrap() error { return ErrOutOfRange }

// Message is one game message. Encode writes the header varint and the
// fields after checking them with Validate; Decode reads the fields (the
// header has already been consumed by the caller) and checks them.
type Message interface {
	// ID returns the NETMSGTYPE_* id.
	ID() int32
	// Validate reports the first field outside its 0.7.5 range.
	Validate() error
	// Encode validates the message and writes header and fields to w.
	Encode(w Writer) error
	// Decode reads the fields from r into the message and validates them.
	Decode(r Reader) error
}

// Encode writes m (header varint (id<<1)|0 and fields) to w. Nothing is
// written when m fails Validate.
func Encode(w Writer, m Message) error { return m.Encode(w) }

// New returns a zero message of the given id, or ErrUnknownMessage.
func New(id int32) (Message, error) {
	switch id {
	case MsgSvMotd:
		return new(SvMotd), nil
	case MsgSvBroadcast:
		return new(SvBroadcast), nil
	case MsgSvChat:
		return new(SvChat), nil
	case MsgSvTeam:
		return new(SvTeam), nil
	case MsgSvKillMsg:
		return new(SvKillMsg), nil
	case MsgSvTuneParams:
		return new(SvTuneParams), nil
	case MsgSvReadyToEnter:
		return new(SvReadyToEnter), nil
	case MsgSvWeaponPickup:
		return new(SvWeaponPickup), nil
	case MsgSvEmoticon:
		return new(SvEmoticon), nil
	case MsgSvVoteClearOptions:
		return new(SvVoteClearOptions), nil
	case MsgSvVoteOptionListAdd:
		return new(SvVoteOptionListAdd), nil
	case MsgSvVoteOptionAdd:
		return new(SvVoteOptionAdd), nil
	case MsgSvVoteOptionRemove:
		return new(SvVoteOptionRemove), nil
	case MsgSvVoteSet:
		return new(SvVoteSet), nil
	case MsgSvVoteStatus:
		return new(SvVoteStatus), nil
	case MsgSvServerSettings:
		return new(SvServerSettings), nil
	case MsgSvClientInfo:
		return new(SvClientInfo), nil
	case MsgSvGameInfo:
		return new(SvGameInfo), nil
	case MsgSvClientDrop:
		return new(SvClientDrop), nil
	case MsgSvGameMsg:
		return new(SvGameMsg), nil
	case MsgDeClientEnter:
		return new(DeClientEnter), nil
	case MsgDeClientLeave:
		return new(DeClientLeave), nil
	case MsgClSay:
		return new(ClSay), nil
	case MsgClSetTeam:
		return new(ClSetTeam), nil
	case MsgClSetSpectatorMode:
		return new(ClSetSpectatorMode), nil
	case MsgClStartInfo:
		return new(ClStartInfo), nil
	case MsgClKill:
		return new(ClKill), nil
	case MsgClReadyChange:
		return new(ClReadyChange), nil
	case MsgClEmoticon:
		return new(ClEmoticon), nil
	case MsgClVote:
		return new(ClVote), nil
	case MsgClCallVote:
		return new(ClCallVote), nil
	case MsgSvSkinChange:
		return new(SvSkinChange), nil
	case MsgClSkinChange:
		return new(ClSkinChange), nil
	case MsgSvRaceFinish:
		return new(SvRaceFinish), nil
	case MsgSvCheckpoint:
		return new(SvCheckpoint), nil
	case MsgSvCommandInfo:
		return new(SvCommandInfo), nil
	case MsgSvCommandInfoRemove:
		return new(SvCommandInfoRemove), nil
	case MsgClCommand:
		return new(ClCommand), nil
	}
	return nil, ErrUnknownMessage
}

// Decode reads the fields of game message id from r (whose header varint was
// already read) into a newly allocated message. Hot paths should switch on
// the id and call the concrete type's Decode method on a reused value instead.
func Decode(id int32, r Reader) (Message, error) {
	m, err := New(id)
	if err != nil {
		return nil, err
	}
	if err := m.Decode(r); err != nil {
		return nil, err
	}
	return m, nil
}

// checker accumulates the first range failure of a message.
type checker struct {
	msg int32
	err error
}

func (c *checker) rng(field string, v, lo, hi int32) {
	if c.err == nil && (v < lo || v > hi) {
		c.err = &RangeError{Msg: c.msg, Field: field, Value: v}
	}
}

func (c *checker) flags(field string, v, mask int32) {
	if c.err == nil && v&^mask != 0 {
		c.err = &RangeError{Msg: c.msg, Field: field, Value: v}
	}
}

const maxInt32 = 1<<31 - 1

// finish turns a reader error into ErrTruncated, else returns the range error.
func (c *checker) finish(r Reader) error {
	if r.Err() != nil {
		return ErrTruncated
	}
	return c.err
}

func header(w Writer, id int32) { w.AddInt(id << 1) }

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// getBool reads a Bool field (range 0..1).
func getBool(r Reader, c *checker, field string) bool {
	v := r.GetInt()
	c.rng(field, v, 0, 1)
	return v == 1
}

// getStrict reads a StringStrict field: every byte < 32 becomes a space
// (SANITIZE_CC) and leading Unicode whitespace is skipped
// (SKIP_START_WHITESPACES), net.md A2.3.
func getStrict(r Reader) string { return Strict(r.GetString()) }

// Strict applies the StringStrict sanitizing of net.md A2.3 to s: control
// bytes become spaces and leading Unicode whitespace is removed. It returns s
// itself when nothing changes.
func Strict(s string) string {
	dirty := false
	for i := 0; i < len(s); i++ {
		if s[i] < 32 {
			dirty = true
			break
		}
	}
	if dirty {
		b := []byte(s)
		for i, c := range b {
			if c < 32 {
				b[i] = ' '
			}
		}
		s = string(b)
	}
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n <= 1 {
			break
		}
		if !isSkipSpace(r) {
			break
		}
		s = s[n:]
	}
	return s
}

// isSkipSpace reports the code points SKIP_START_WHITESPACES removes.
func isSkipSpace(r rune) bool {
	switch {
	case r <= 0x20, r == 0xA0, r == 0x34F:
		return true
	case r >= 0x2000 && r <= 0x200F, r >= 0x2028 && r <= 0x202F,
		r >= 0x205F && r <= 0x2064, r >= 0x206A && r <= 0x206F:
		return true
	case r == 0x3000, r >= 0xFE00 && r <= 0xFE0F, r == 0xFEFF, r >= 0xFFF9 && r <= 0xFFFC:
		return true
	}
	return false
}

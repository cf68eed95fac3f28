package teehist

import (
	"encoding/binary"
	"errors"
)

// A checkpoint's payload (CHECKPOINT records, their parts joined) is the
// world state with every run of zero bytes coded as one zero byte and the
// run's length minus one as a uvarint; the other bytes are as they are. A
// world state is mostly zeros (free snapshot ids, empty player slots), so
// a 16-player game's 41 KB state takes about 4 KB.

// MaxCheckpointState bounds the world state a checkpoint's payload may code
// (worldstate.MaxState).
const MaxCheckpointState = 1 << 20

// ErrCheckpoint is ReadZeroRuns's error for a payload that is not one, or
// codes more than MaxCheckpointState bytes.
var ErrCheckpoint = errors.New("teehist: malformed checkpoint")

// AppendZeroRuns appends state with its zero runs coded to dst.
func AppendZeroRuns(dst, state []byte) []byte {
	for i := 0; i < len(state); {
		if state[i] != 0 {
			dst = append(dst, state[i])
			i++
			continue
		}
		j := i + 1
		for j < len(state) && state[j] == 0 {
			j++
		}
		dst = binary.AppendUvarint(append(dst, 0), uint64(j-i-1))
		i = j
	}
	return dst
}

// ReadZeroRuns appends the state payload codes (AppendZeroRuns) to dst.
func ReadZeroRuns(dst, payload []byte) ([]byte, error) {
	start := len(dst)
	for i := 0; i < len(payload); {
		c := payload[i]
		i++
		n := uint64(0)
		if c == 0 {
			v, k := binary.Uvarint(payload[i:])
			if k <= 0 {
				return dst[:start], ErrCheckpoint
			}
			i += k
			n = v
		}
		if n >= MaxCheckpointState || uint64(len(dst)-start)+n+1 > MaxCheckpointState {
			return dst[:start], ErrCheckpoint
		}
		dst = append(dst, c)
		for ; n > 0; n-- {
			dst = append(dst, 0)
		}
	}
	return dst, nil
}

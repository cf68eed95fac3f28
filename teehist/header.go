package teehist

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Version is the teehistorian format version written ("2": with EX messages).
const Version = "2"

// VersionMinor is the minor version written, the one of the DDNet 16.4 files
// whose message set this package writes.
const VersionMinor = "4"

// StartTimeLayout is the header's start_time format (strftime %Y-%m-%dT%H:%M:%S%z).
const StartTimeLayout = "2006-01-02T15:04:05-0700"

// KV is one ordered key/value pair of the header's config or tuning object.
type KV struct{ Key, Value string }

// Header is the JSON header of a teehistorian file. On writing every field
// is emitted in the reference order; on reading, missing keys stay zero and
// only Version is required.
type Header struct {
	Comment         string
	Version         string
	VersionMinor    string
	GameUUID        UUID
	PrevGameUUID    UUID // zero: not written
	ServerVersion   string
	StartTime       time.Time
	ServerName      string
	ServerPort      int
	GameType        string
	MapName         string
	MapSize         int
	MapSHA256       [32]byte
	MapCRC          uint32
	PrngDescription string
	Config          []KV // variables that differ from their default
	Tuning          []KV // tuning values (int×100) that differ from the default
	UUIDs           []string

	// Raw is the header JSON as read (reader only).
	Raw []byte
}

// AppendJSON appends the header JSON (no NUL) exactly as the reference
// writer formats it: no whitespace, every value a string.
func (h *Header) AppendJSON(b []byte) []byte {
	str := func(b []byte, k, v string, comma bool) []byte {
		if comma {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = appendEscaped(b, k)
		b = append(b, `":"`...)
		b = appendEscaped(b, v)
		return append(b, '"')
	}
	comment := h.Comment
	if comment == "" {
		comment = MagicName
	}
	version := h.Version
	if version == "" {
		version = Version
	}
	b = append(b, '{')
	b = str(b, "comment", comment, false)
	b = str(b, "version", version, true)
	if h.VersionMinor != "" {
		b = str(b, "version_minor", h.VersionMinor, true)
	}
	b = str(b, "game_uuid", h.GameUUID.String(), true)
	if h.PrevGameUUID != (UUID{}) {
		b = str(b, "prev_game_uuid", h.PrevGameUUID.String(), true)
	}
	b = str(b, "server_version", h.ServerVersion, true)
	b = str(b, "start_time", h.StartTime.Format(StartTimeLayout), true)
	b = str(b, "server_name", h.ServerName, true)
	b = str(b, "server_port", strconv.Itoa(h.ServerPort), true)
	b = str(b, "game_type", h.GameType, true)
	b = str(b, "map_name", h.MapName, true)
	b = str(b, "map_size", strconv.Itoa(h.MapSize), true)
	b = str(b, "map_sha256", hex.EncodeToString(h.MapSHA256[:]), true)
	b = str(b, "map_crc", fmt.Sprintf("%08x", h.MapCRC), true)
	b = str(b, "prng_description", h.PrngDescription, true)
	b = append(b, `,"config":{`...)
	for i, kv := range h.Config {
		b = str(b, kv.Key, kv.Value, i > 0)
	}
	b = append(b, `},"tuning":{`...)
	for i, kv := range h.Tuning {
		b = str(b, kv.Key, kv.Value, i > 0)
	}
	b = append(b, `},"uuids":[`...)
	for i, n := range h.UUIDs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = appendEscaped(b, n)
		b = append(b, '"')
	}
	return append(b, "]}"...)
}

// appendEscaped escapes s like the reference EscapeJson: quote, backslash,
// \b \n \r \t, other control bytes as \u00xx; everything else raw.
func appendEscaped(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&15])
			} else {
				b = append(b, c)
			}
		}
	}
	return b
}

// DefaultUUIDs returns the extension names twserver may emit, in the
// registration order of ExTable.
func DefaultUUIDs() []string {
	out := make([]string, 0, len(ExTable)-1)
	for k := ExKind(1); k < numExKinds; k++ {
		out = append(out, ExTable[k].Name)
	}
	return out
}

// ErrBadHeader is returned for a header that is not a JSON object with a
// string "version".
var ErrBadHeader = errors.New("teehist: bad header")

// ParseHeaderJSON decodes a header JSON object. Unknown keys are ignored;
// values that are not strings where the reference writes strings are errors.
func ParseHeaderJSON(raw []byte) (*Header, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadHeader, err)
	}
	h := &Header{Raw: raw}
	get := func(k string) (string, error) {
		v, ok := m[k]
		if !ok {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", fmt.Errorf("%w: key %q is not a string", ErrBadHeader, k)
		}
		return s, nil
	}
	var err error
	strs := []struct {
		k string
		p *string
	}{{"comment", &h.Comment}, {"version", &h.Version}, {"version_minor", &h.VersionMinor},
		{"server_version", &h.ServerVersion}, {"server_name", &h.ServerName}, {"game_type", &h.GameType},
		{"map_name", &h.MapName}, {"prng_description", &h.PrngDescription}}
	for _, f := range strs {
		if *f.p, err = get(f.k); err != nil {
			return nil, err
		}
	}
	if h.Version == "" {
		return nil, fmt.Errorf("%w: no version", ErrBadHeader)
	}
	more := map[string]string{}
	for _, k := range []string{"game_uuid", "prev_game_uuid", "start_time", "server_port", "map_size", "map_sha256", "map_crc"} {
		if more[k], err = get(k); err != nil {
			return nil, err
		}
	}
	if s := more["game_uuid"]; s != "" {
		if h.GameUUID, err = ParseUUID(s); err != nil {
			return nil, fmt.Errorf("%w: game_uuid", ErrBadHeader)
		}
	}
	if s := more["prev_game_uuid"]; s != "" {
		if h.PrevGameUUID, err = ParseUUID(s); err != nil {
			return nil, fmt.Errorf("%w: prev_game_uuid", ErrBadHeader)
		}
	}
	if s := more["start_time"]; s != "" {
		h.StartTime, _ = time.Parse(StartTimeLayout, s) // informative only
	}
	h.ServerPort, _ = strconv.Atoi(more["server_port"])
	h.MapSize, _ = strconv.Atoi(more["map_size"])
	if s := more["map_sha256"]; s != "" {
		if d, err := hex.DecodeString(s); err == nil && len(d) == 32 {
			copy(h.MapSHA256[:], d)
		}
	}
	if s := more["map_crc"]; s != "" {
		v, _ := strconv.ParseUint(s, 16, 32)
		h.MapCRC = uint32(v)
	}
	if h.Config, err = orderedObject(m["config"]); err != nil {
		return nil, fmt.Errorf("%w: config: %v", ErrBadHeader, err)
	}
	if h.Tuning, err = orderedObject(m["tuning"]); err != nil {
		return nil, fmt.Errorf("%w: tuning: %v", ErrBadHeader, err)
	}
	if u, ok := m["uuids"]; ok {
		if err := json.Unmarshal(u, &h.UUIDs); err != nil {
			return nil, fmt.Errorf("%w: uuids", ErrBadHeader)
		}
	}
	return h, nil
}

// orderedObject decodes a JSON object of string values keeping key order.
func orderedObject(raw json.RawMessage) ([]KV, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var out []KV
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		vt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		v, ok := vt.(string)
		if !ok {
			return nil, fmt.Errorf("value of %q is not a string", k)
		}
		out = append(out, KV{k, v})
	}
	return out, nil
}

package session

import (
	"fmt"
	"strings"

	"twserver/gamemsg"
)

// MaxNameLen and MaxClanLen are the bytes of text a name and a clan keep
// (MAX_NAME_LENGTH 16 and MAX_CLAN_LENGTH 12, NUL included).
const (
	MaxNameLen = 15
	MaxClanLen = 11
)

// Name is the name req makes: trimmed and cut to MaxNameLen bytes without
// splitting a UTF-8 sequence, trimmed again.
func Name(req string) string {
	return strings.TrimSpace(gamemsg.TruncUTF8(strings.TrimSpace(req), MaxNameLen))
}

// StartName is the name a player in slot cid starts with when its start
// info asks for req: Name(req), or "(cid+1)" when that is empty.
func StartName(req string, cid int) string {
	if n := Name(req); n != "" {
		return n
	}
	return fmt.Sprintf("(%d)", cid+1)
}

// Clan is the clan req makes: cut to MaxClanLen bytes.
func Clan(req string) string { return gamemsg.TruncUTF8(req, MaxClanLen) }

// UniqueName is the name a player who has name now gets when it asks for
// req, by the 0.6 reference's rule (CServer::SetClientName): Name(req);
// if that is empty or taken, the first "(1)req", "(2)req", … (cut
// likewise) that is not. taken reports whether another player holds a
// name; others bounds how many do, so one of the first others+1
// candidates is free. If none is (taken lied), the name stays.
func UniqueName(name, req string, others int, taken func(string) bool) string {
	base := Name(req)
	if base != "" && !taken(base) {
		return base
	}
	for i := 1; i <= others+1; i++ {
		if try := gamemsg.TruncUTF8(fmt.Sprintf("(%d)%s", i, base), MaxNameLen); !taken(try) {
			return try
		}
	}
	return name
}

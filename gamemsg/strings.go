package gamemsg

import "unicode/utf8"

// TruncUTF8 cuts s to at most n bytes without splitting a UTF-8 sequence
// (the rule for names, clans and chat lines kept by the server).
func TruncUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

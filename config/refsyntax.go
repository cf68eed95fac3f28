package config

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// This file reads the reference server's console syntax (teeworlds 0.7.5
// src/engine/shared/console.cpp and linereader.cpp) exactly as the reference
// splits and tokenizes it; what the commands mean is in refcfg.go.

// MaxCommandLen is the longest command the reference keeps: a longer one is
// cut to this many bytes (CONSOLE_MAX_STR_LENGTH).
const MaxCommandLen = 1024

// errUnterminated is the reference's "Invalid arguments" for a quoted
// argument without its closing quote.
var errUnterminated = errors.New(`unterminated "quoted" argument`)

// errMissingArg is the reference's "Invalid arguments" for a command without
// a required argument.
var errMissingArg = errors.New("missing argument")

// splitLines splits a file into lines as the reference's line reader does:
// a line ends at "\n", "\r" or "\r\n". A NUL ends the line's text, as in C.
func splitLines(data []byte) []string {
	var lines []string
	start := 0
	for i := 0; i < len(data); i++ {
		if data[i] != '\n' && data[i] != '\r' {
			continue
		}
		lines = append(lines, cString(data[start:i]))
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		start = i + 1
	}
	if start < len(data) {
		lines = append(lines, cString(data[start:]))
	}
	return lines
}

// cString is b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// splitCommands splits one line into its commands as the reference does
// (ExecuteLineStroked): outside quotes ';' separates commands and '#' starts
// a comment; '"' toggles quoting and `\"` does not. Each command is cut to
// MaxCommandLen bytes. An empty command ends the line: the reference stops
// there, so the commands after it are returned in dropped.
func splitCommands(line string) (cmds []string, dropped string) {
	for s := line; s != ""; {
		end, next, inString := 0, -1, false
	scan:
		for ; end < len(s); end++ {
			switch c := s[end]; {
			case c == '"':
				inString = !inString
			case c == '\\':
				if end+1 < len(s) && s[end+1] == '"' {
					end++
				}
			case !inString && c == ';':
				next = end + 1
				break scan
			case !inString && c == '#':
				break scan
			}
		}
		seg := s[:end]
		if len(seg) > MaxCommandLen {
			seg = seg[:MaxCommandLen]
		}
		if name, _ := splitName(seg); name == "" {
			if next >= 0 {
				dropped = strings.TrimSpace(s[next:])
			}
			return cmds, dropped
		}
		cmds = append(cmds, seg)
		if next < 0 {
			break
		}
		s = s[next:]
	}
	return cmds, ""
}

// isSkipSpace is the reference's str_skip_whitespaces set.
func isSkipSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isTokenEnd is the reference's str_skip_to_whitespace set (no '\r').
func isTokenEnd(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func skipSpaces(s string) string {
	for s != "" && isSkipSpace(s[0]) {
		s = s[1:]
	}
	return s
}

// splitName splits a command into its name and the text of its arguments
// (ParseStart).
func splitName(cmd string) (name, args string) {
	cmd = skipSpaces(cmd)
	i := 0
	for i < len(cmd) && !isTokenEnd(cmd[i]) {
		i++
	}
	name = cmd[:i]
	if i < len(cmd) {
		i++
	}
	return name, cmd[i:]
}

// parseArgs tokenizes args by a reference parameter format (ParseArgs):
// 'i', 's' one token, 'r' the rest of the command, '?' makes the following
// parameters optional. A quoted argument ends at its closing quote, with `\\`
// and `\"` unescaped and any other backslash kept; whatever follows the last
// parameter is returned in rest.
func parseArgs(args, format string) (out []string, rest string, err error) {
	s := args
	optional := false
	for _, p := range format {
		if p == '?' {
			optional = true
			continue
		}
		s = skipSpaces(s)
		if s == "" {
			if !optional {
				return out, "", errMissingArg
			}
			return out, "", nil
		}
		if s[0] == '"' {
			var b strings.Builder
			i := 1
			for {
				if i >= len(s) {
					return out, "", errUnterminated
				}
				c := s[i]
				if c == '"' {
					break
				}
				if c == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '"') {
					i++
					c = s[i]
				}
				b.WriteByte(c)
				i++
			}
			out = append(out, b.String())
			s = s[i+1:]
			if p == 'r' {
				return out, s, nil
			}
			continue
		}
		if p == 'r' {
			return append(out, trimRefSpaceRight(s)), "", nil
		}
		i := 0
		for i < len(s) && !isTokenEnd(s[i]) {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out, s, nil
}

// isRefSpace is the reference's str_utf8_is_whitespace: control characters,
// space and the invisible Unicode spaces.
func isRefSpace(r rune) bool {
	return !(r > 0x20 && r != 0xA0 && r != 0x034F && (r < 0x2000 || r > 0x200F) && (r < 0x2028 || r > 0x202F) &&
		(r < 0x205F || r > 0x2064) && (r < 0x206A || r > 0x206F) && r != 0x3000 && (r < 0xFE00 || r > 0xFE0F) &&
		r != 0xFEFF && (r < 0xFFF9 || r > 0xFFFC))
}

// trimRefSpaceRight removes trailing whitespace as the reference does for a
// rest-of-line argument; at least the first character stays.
func trimRefSpaceRight(s string) string {
	for len(s) > 1 {
		r, n := utf8.DecodeLastRuneInString(s)
		if r == utf8.RuneError && n <= 1 || !isRefSpace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// refString stores a string setting as the reference does: cut to max-1
// bytes, and a value that is not UTF-8 read as Latin-1. cut reports whether
// bytes were dropped.
func refString(v string, bufSize int) (s string, cut bool) {
	if utf8.ValidString(v) {
		if bufSize > 0 && len(v) > bufSize-1 {
			i := bufSize - 1
			return v[:i], true // the reference cuts bytes, even inside a character
		}
		return v, false
	}
	var b []byte
	for i := 0; i < len(v); i++ {
		n := utf8.RuneLen(rune(v[i]))
		if bufSize > 0 && len(b)+n >= bufSize {
			return string(b), true
		}
		b = utf8.AppendRune(b, rune(v[i]))
	}
	return string(b), false
}

// refInt reads an integer argument. The reference reads it with atoi (so
// "12abc" is 12 and "abc" is 0); twserver refuses anything but an optional
// sign and decimal digits, and numbers beyond 32 bits.
func refInt(v string) (int, bool) {
	s := skipSpaces(v)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || len(s) > 10 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		n = -n
	}
	if n < -1<<31 || n > 1<<31-1 {
		return 0, false
	}
	return n, true
}

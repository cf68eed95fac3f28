package console

import (
	"errors"
	"strconv"
	"strings"

	"twserver/teehist/replay"
)

// Console line syntax of the reference (0.7.5 console): a line holds
// commands separated by ';' and ends at '#' (both only outside double
// quotes); each command is a name and arguments parsed by the command's
// parameter string: 's' a word, 'i' an integer, 'f' a number, 'r' the rest
// of the line, '?' makes the following parameters optional, and "[name]"
// after a letter only names the parameter. A quoted argument may hold
// blanks, ';' and '#'; inside it \" is a quote and \\ a backslash.

// MaxCommandArgs bounds the arguments of one command (the longest parameter
// string of the command table has 4).
const MaxCommandArgs = 8

// errBadArgs is returned by parseArgs when a required argument is missing or
// a quote is not closed.
var errBadArgs = errors.New("invalid arguments")

// splitCommands splits a console line into its commands at ';' and cuts it
// at '#', both outside quotes. Empty parts are dropped.
func splitCommands(line string) []string {
	var parts []string
	start, inStr := 0, false
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case ch == '"':
			inStr = !inStr
		case ch == '\\':
			// \" escapes a quote anywhere; inside quotes \\ is one
			// backslash, as parseArgs reads it, so a quoted argument may
			// end in an escaped backslash ("a\\") and still close.
			if i+1 < len(line) && (line[i+1] == '"' || inStr && line[i+1] == '\\') {
				i++
			}
		case !inStr && ch == ';':
			parts = appendPart(parts, line[start:i])
			start = i + 1
		case !inStr && ch == '#':
			return appendPart(parts, line[start:i])
		}
	}
	return appendPart(parts, line[start:])
}

func appendPart(parts []string, p string) []string {
	if strings.TrimSpace(p) == "" {
		return parts
	}
	return append(parts, p)
}

// isBlank reports the reference's white space (space, tab, newline, CR).
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipBlanks(s string) string {
	for len(s) > 0 && isBlank(s[0]) {
		s = s[1:]
	}
	return s
}

// splitName returns the command name of one command and the text after it.
func splitName(cmd string) (name, rest string) {
	cmd = skipBlanks(cmd)
	i := 0
	for i < len(cmd) && !isBlank(cmd[i]) {
		i++
	}
	if i < len(cmd) {
		return cmd[:i], cmd[i+1:]
	}
	return cmd, ""
}

// parseArgs splits rest by the parameter string params (see above). It
// returns errBadArgs when a required argument is missing or a quoted
// argument is not closed.
func parseArgs(rest, params string) ([]string, error) {
	var args []string
	optional := false
	for p := 0; p < len(params); p++ {
		kind := params[p]
		switch kind {
		case ' ':
			continue
		case '[':
			if j := strings.IndexByte(params[p:], ']'); j >= 0 {
				p += j
				continue
			}
			return args, nil
		case '?':
			optional = true
			continue
		}
		rest = skipBlanks(rest)
		if rest == "" {
			if optional {
				return args, nil
			}
			return args, errBadArgs
		}
		if len(args) == MaxCommandArgs {
			return args, errBadArgs
		}
		if rest[0] == '"' {
			var b strings.Builder
			i := 1
			for ; i < len(rest) && rest[i] != '"'; i++ {
				if rest[i] == '\\' && i+1 < len(rest) && (rest[i+1] == '\\' || rest[i+1] == '"') {
					i++
				}
				b.WriteByte(rest[i])
			}
			if i >= len(rest) {
				return args, errBadArgs
			}
			args = append(args, b.String())
			rest = rest[i+1:]
			continue
		}
		if kind == 'r' {
			args = append(args, strings.TrimRight(rest, " \t\n\r"))
			return args, nil
		}
		i := 0
		for i < len(rest) && !isBlank(rest[i]) {
			i++
		}
		args = append(args, rest[:i])
		rest = rest[i:]
	}
	return args, nil
}

// Args are the parsed arguments of one command.
type Args []string

// N returns the number of arguments given.
func (a Args) N() int { return len(a) }

// Str returns argument i, "" when absent.
func (a Args) Str(i int) string {
	if i < len(a) {
		return a[i]
	}
	return ""
}

// Int returns argument i as the reference reads integers (C atoi: leading
// digits, 0 for none), 0 when absent.
func (a Args) Int(i int) int { return replay.IntArg(a.Str(i)) }

// Float returns argument i as the reference reads numbers (C atof: the
// longest leading decimal number, 0 for none), 0 when absent.
func (a Args) Float(i int) float64 {
	s := skipBlanks(a.Str(i))
	best := 0.0
	for j := 1; j <= len(s) && j <= 64; j++ {
		if v, err := strconv.ParseFloat(s[:j], 64); err == nil {
			best = v
		}
	}
	return best
}

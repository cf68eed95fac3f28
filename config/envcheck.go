package config

import (
	"slices"
	"strings"
)

// maxSuggestLen bounds the names closest compares, so a long name costs
// nothing.
const maxSuggestLen = 64

// CheckEnv warns about each variable of environ ("NAME=VALUE", as
// os.Environ gives them) that looks meant for twserver but sets nothing,
// so a typo does not pass unseen: a TWSERVER_ name of no key, and an
// SV_ or EC_ name of no 0.7.5 setting, each with the nearest valid name
// when one is a letter or two away. The names in own are twserver's own
// variables that are no key (the upgrade's handover). Values are never
// shown: they may be passwords.
func (l *Loader) CheckEnv(environ []string, own ...string) {
	var keyNames, svNames []string
	for _, k := range Keys() {
		keyNames = append(keyNames, EnvName(k))
	}
	for _, n := range settingNames() {
		svNames = append(svNames, strings.ToUpper(n))
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		var known []string
		var msg string
		switch {
		case strings.HasPrefix(name, EnvPrefix):
			known, msg = keyNames, "names no configuration key"
		case strings.HasPrefix(name, "SV_") || strings.HasPrefix(name, "EC_"):
			known, msg = svNames, "names no setting of teeworlds-server 0.7.5"
		default:
			continue
		}
		if slices.Contains(known, name) || slices.Contains(own, name) {
			continue
		}
		l.warn("", Warning{"environment variable " + name, "", msg + didYouMean(name, known) + ": ignored"})
	}
}

// settingNames are the console names of the 0.7.5 settings, supported or
// not (sv_port, ec_password, logfile, ...).
func settingNames() []string {
	var names []string
	for _, r := range SvNames {
		if isSvName(r.Sv) {
			names = append(names, r.Sv)
		}
	}
	for _, u := range Unsupported {
		names = append(names, u.Sv)
	}
	return names
}

// tomlNames are the names an unknown TOML key is compared with for a
// suggestion: every key, every table, and the keys of [[vote]].
func tomlNames() []string {
	names := append(Keys(), "vote.description", "vote.command")
	for _, k := range Keys() {
		if t, _, ok := strings.Cut(k, "."); ok && !slices.Contains(names, t) {
			names = append(names, t)
		}
	}
	return names
}

// didYouMean is the hint after a name s of none of names: " (did you
// mean N?)" with the nearest (closest), "" when none is near.
func didYouMean(s string, names []string) string {
	if c := closest(s, names); c != "" {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// closest returns the name of names nearest to s, when it is at most two
// edits (insert, delete, replace a byte) away; "" otherwise.
func closest(s string, names []string) string {
	best, bestD := "", 3
	if len(s) > maxSuggestLen {
		return ""
	}
	for _, n := range names {
		if len(n) > maxSuggestLen || len(n)-len(s) >= bestD || len(s)-len(n) >= bestD {
			continue
		}
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Link is one Markdown link of a page: its target as written and the line
// it is on.
type Link struct {
	Target string
	Line   int
}

// linkRE matches an inline link or image, [text](target) or
// [text](target "title"); the target is group 1.
var linkRE = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// inlineCodeRE matches inline code spans, whose brackets are not links.
var inlineCodeRE = regexp.MustCompile("`[^`]*`")

// Links returns the links of a Markdown page outside fenced and indented
// code blocks and inline code.
func Links(md string) []Link {
	var out []Link
	fenced := false
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			continue
		}
		line = inlineCodeRE.ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Target: m[1], Line: i + 1})
		}
	}
	return out
}

// headingLinkRE matches a link inside a heading, whose text alone counts
// for the anchor.
var headingLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// Anchor returns the anchor GitHub gives a heading's text: lower case,
// every character that is not a letter, digit, space, '-' or '_' dropped,
// spaces turned into '-'.
func Anchor(heading string) string {
	heading = headingLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors returns the set of anchors of a page's ATX headings ("# ..." to
// "###### ..."), outside fenced code blocks; a repeated heading gets
// "-1", "-2", ... as on GitHub.
func Anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimLeft(line, "#")
		if len(line)-len(text) > 6 || (text != "" && text[0] != ' ') {
			continue
		}
		a := Anchor(strings.TrimRight(strings.TrimSpace(text), "#"))
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// Check reads the pages (paths relative to root) and returns one error per
// relative link whose file does not exist or whose anchor is not a heading
// of the page it names. Links with a scheme (https:, mailto:) are not
// checked.
func Check(root string, pages []string) []error {
	var errs []error
	anchors := map[string]map[string]bool{}
	read := func(rel string) (string, error) {
		data, err := os.ReadFile(filepath.Join(root, rel))
		return string(data), err
	}
	for _, page := range pages {
		md, err := read(page)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range Links(md) {
			if strings.Contains(l.Target, "://") || strings.HasPrefix(l.Target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(l.Target, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat(filepath.Join(root, target)); err != nil {
					errs = append(errs, fmt.Errorf("%s:%d: link %q: no file %s", page, l.Line, l.Target, target))
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				errs = append(errs, fmt.Errorf("%s:%d: link %q: an anchor into a file that is not Markdown", page, l.Line, l.Target))
				continue
			}
			set, ok := anchors[target]
			if !ok {
				text, err := read(target)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				set = Anchors(text)
				anchors[target] = set
			}
			if !set[frag] {
				errs = append(errs, fmt.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", page, l.Line, l.Target, target, frag))
			}
		}
	}
	return errs
}

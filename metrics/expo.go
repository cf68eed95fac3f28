package metrics

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The Prometheus text exposition format, version 0.0.4, written by hand:
// the endpoint needs families of gauges, counters, histograms and one
// summary with a few labels, and the client library that can do far more
// costs the process about 3 MB of resident memory (its code, its init work
// and protobuf's).

// ContentType is the Content-Type of a /metrics answer.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Metric types as the # TYPE line names them.
const (
	typeGauge     = "gauge"
	typeCounter   = "counter"
	typeHistogram = "histogram"
	typeSummary   = "summary"
)

// family is one metric family: its name, help, type and label names (in
// the order its samples pass their values).
type family struct {
	id     int
	name   string
	help   string
	typ    string
	labels []string
	// order lists the label indexes sorted by label name, with -1 where
	// GameLabel falls among them; the exposition writes labels sorted.
	order []int
}

// families are every family the endpoint may serve, in order of creation;
// sortedFamilies the same sorted by name, the order of the exposition.
var families, sortedFamilies []*family

// newFamily describes and registers a family. Families are package
// variables, so the list is complete before any Endpoint exists.
func newFamily(name, help, typ string, labels ...string) *family {
	f := &family{id: len(families), name: name, help: help, typ: typ, labels: labels}
	names := append(slices.Clone(labels), GameLabel)
	f.order = make([]int, len(names))
	for i := range f.order {
		f.order[i] = i
	}
	slices.SortFunc(f.order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	for i, j := range f.order {
		if j == len(labels) {
			f.order[i] = -1
		}
	}
	families = append(families, f)
	return f
}

// init sorts the families once every package variable has registered its.
func init() {
	sortedFamilies = slices.Clone(families)
	slices.SortFunc(sortedFamilies, func(a, b *family) int { return strings.Compare(a.name, b.name) })
}

// expo collects the samples of one scrape, grouped by family, into
// buffers it keeps for the next scrape: in steady state a scrape
// allocates nothing here.
type expo struct {
	body [][]byte // samples by family id
	out  []byte   // the exposition
	game string   // value of GameLabel on the samples being written ("" = none)
}

// reset empties the buffers for a new scrape.
func (x *expo) reset() {
	if len(x.body) < len(families) {
		x.body = make([][]byte, len(families))
	}
	for i := range x.body {
		x.body[i] = x.body[i][:0]
	}
	x.out = x.out[:0]
	x.game = ""
}

// start writes a sample's name, suffix and labels (the family's, in
// values, plus extraName="extraValue" last if extraName is set) up to the
// space before the value, and returns the family's buffer.
func (x *expo) start(f *family, suffix, extraName, extraValue string, values []string) []byte {
	b := x.body[f.id]
	b = append(b, f.name...)
	b = append(b, suffix...)
	sep := byte('{')
	for _, i := range f.order {
		name, value := GameLabel, x.game
		if i >= 0 {
			name, value = f.labels[i], values[i]
		} else if x.game == "" {
			continue
		}
		b = append(b, sep)
		b = appendLabel(b, name, value)
		sep = ','
	}
	if extraName != "" {
		b = append(b, sep)
		b = appendLabel(b, extraName, extraValue)
		sep = ','
	}
	if sep == ',' {
		b = append(b, '}')
	}
	return append(b, ' ')
}

// float writes one sample with a float value.
func (x *expo) float(f *family, v float64, values ...string) {
	x.floatX(f, "", "", "", v, values)
}

// uint writes one sample with an integer value.
func (x *expo) uint(f *family, v uint64, values ...string) {
	x.uintX(f, "", "", "", v, values)
}

func (x *expo) floatX(f *family, suffix, extraName, extraValue string, v float64, values []string) {
	b := x.start(f, suffix, extraName, extraValue, values)
	x.body[f.id] = append(strconv.AppendFloat(b, v, 'g', -1, 64), '\n')
}

func (x *expo) uintX(f *family, suffix, extraName, extraValue string, v uint64, values []string) {
	b := x.start(f, suffix, extraName, extraValue, values)
	x.body[f.id] = append(strconv.AppendUint(b, v, 10), '\n')
}

// les formats upper bounds as the le label values of histogram buckets.
func les(bounds []float64) []string {
	out := make([]string, len(bounds))
	for i, ub := range bounds {
		out[i] = strconv.FormatFloat(ub, 'g', -1, 64)
	}
	return out
}

// histogram writes a histogram's buckets (cumulative counts at the upper
// bounds, formatted in les), +Inf bucket, sum and count. The count is
// raised to the highest bucket if observations arrived between the reads.
func (x *expo) histogram(f *family, les []string, cum []uint64, count uint64, sum float64) {
	count = max(count, cum[len(cum)-1])
	for i, le := range les {
		x.uintX(f, "_bucket", "le", le, cum[i], nil)
	}
	x.uintX(f, "_bucket", "le", "+Inf", count, nil)
	x.floatX(f, "_sum", "", "", sum, nil)
	x.uintX(f, "_count", "", "", count, nil)
}

// finish writes the families that have samples, sorted by name, each
// with its HELP and TYPE lines, and returns the exposition.
func (x *expo) finish() []byte {
	for _, f := range sortedFamilies {
		body := x.body[f.id]
		if len(body) == 0 {
			continue
		}
		x.out = append(x.out, "# HELP "...)
		x.out = append(x.out, f.name...)
		x.out = append(x.out, ' ')
		x.out = appendEscaped(x.out, f.help, false)
		x.out = append(x.out, "\n# TYPE "...)
		x.out = append(x.out, f.name...)
		x.out = append(x.out, ' ')
		x.out = append(x.out, f.typ...)
		x.out = append(x.out, '\n')
		x.out = append(x.out, body...)
	}
	return x.out
}

// appendLabel appends name="value" with the value escaped.
func appendLabel(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, '=', '"')
	b = appendEscaped(b, value, true)
	return append(b, '"')
}

// appendEscaped appends s escaped as the text format wants: backslash and
// newline always, the double quote in label values. Bytes that are not
// UTF-8 become U+FFFD, since the format is UTF-8 and a label value may come
// from the configuration (the server's name, its map).
func appendEscaped(b []byte, s string, quote bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\\':
				b = append(b, '\\', '\\')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '"' && quote:
				b = append(b, '\\', '"')
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

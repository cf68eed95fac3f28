package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryLinks: every relative link of README.md, CONTRIBUTING.md
// and docs/*.md resolves to a file, and every #anchor to a heading.
func TestRepositoryLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	pages := []string{"README.md", "CONTRIBUTING.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md found")
	}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, rel)
	}
	links := 0
	for _, p := range pages {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		links += len(Links(string(data)))
	}
	if links < 20 {
		t.Fatalf("only %d links found in %d pages: the link scanner is broken", links, len(pages))
	}
	for _, err := range Check(root, pages) {
		t.Error(err)
	}
}

// TestAnchor follows GitHub's rules on headings of the kind these pages have.
func TestAnchor(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Quick start", "quick-start"},
		{"Coming from teeworlds-server", "coming-from-teeworlds-server"},
		{"Metrics and health (`[metrics]`)", "metrics-and-health-metrics"},
		{"Slot-holding: stalled connections (`twload hold`, `scripts/hold.sh`)", "slot-holding-stalled-connections-twload-hold-scriptsholdsh"},
		{"0.6 and DDNet clients in the same game", "06-and-ddnet-clients-in-the-same-game"},
		{"Independent check (npm `teeworlds` bots)", "independent-check-npm-teeworlds-bots"},
		{"Settings at run time", "settings-at-run-time"},
		{"rcon_password login", "rcon_password-login"},
		{"A [linked](x.md) heading", "a-linked-heading"},
	} {
		if got := Anchor(tc.heading); got != tc.want {
			t.Errorf("Anchor(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// TestCheckFindsBrokenLinks is the positive control: a missing file, a
// missing anchor in another page and in the same page are each reported,
// while good links, links in code and external links are not.
func TestCheckFindsBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/b.md", "# Page B\n\n## Same\n\n## Same\n\n```\n# not a heading\n```\n")
	write("a.md", strings.Join([]string{
		"# Page A",
		"## Local part",
		"[ok](docs/b.md) [ok](docs/b.md#page-b) [ok](docs/b.md#same-1) [ok](#local-part)",
		"[ok](https://example.invalid/x#y) `[code](missing.md)`",
		"    [indented code](missing.md)",
		"[bad file](docs/c.md)",
		"[bad anchor](docs/b.md#not-there)",
		"[bad code anchor](docs/b.md#not-a-heading)",
		"[bad local](#nowhere)",
	}, "\n"))
	errs := Check(dir, []string{"a.md"})
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{"docs/c.md", "#not-there", "#not-a-heading", "#nowhere"}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d: %q", len(got), len(want), got)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("error %d = %q, want it to name %s", i, got[i], w)
		}
	}
}

package pagejs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pageDirs are the directories of the pages that load common.js.
var pageDirs = []string{"../web/static", "../watch/static", "../cmd/twhist/static"}

// TestPagesShareCommon: every page loads /common.js before its other
// scripts, and no page script defines $ or el again or writes the bot
// suffix itself: common.js is the one place of each.
func TestPagesShareCommon(t *testing.T) {
	again := regexp.MustCompile(`(?m)^\s*(const|let|var)\s+\$\s*=|function\s+el\s*\(|\[bot\]`)
	script := regexp.MustCompile(`<script src="([^"]+)"`)
	pages := 0
	for _, dir := range pageDirs {
		files, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v, %d files", dir, err, len(files))
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case strings.HasSuffix(f, ".js"):
				if m := again.Find(b); m != nil {
					t.Errorf("%s defines what common.js holds: %q", f, m)
				}
			case strings.HasSuffix(f, ".html"):
				srcs := script.FindAllSubmatch(b, -1)
				if len(srcs) > 0 {
					pages++
					if string(srcs[0][1]) != "/common.js" {
						t.Errorf("%s loads %s before /common.js", f, srcs[0][1])
					}
				}
			}
		}
	}
	if pages < 5 { // index, admin, login, watch, archive
		t.Errorf("%d pages with scripts, want 5", pages)
	}
	if !strings.Contains(string(CommonJS), "' [bot]'") {
		t.Error("common.js does not write the bot suffix")
	}
}

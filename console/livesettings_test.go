package console

import (
	"os"
	"strings"
	"testing"
)

// TestDocSettingsWhen: docs/configuration.md's "Settings at run time" names every
// setting that does not take effect at once under the right heading.
func TestDocSettingsWhen(t *testing.T) {
	readme, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(readme)
	start := strings.Index(sec, "### Settings at run time")
	if start < 0 {
		t.Fatal("docs/configuration.md: no section Settings at run time")
	}
	sec = sec[start:]
	if end := strings.Index(sec[4:], "\n#"); end >= 0 {
		sec = sec[:end+4]
	}
	bullet := func(head string) string {
		i := strings.Index(sec, "- **"+head)
		if i < 0 {
			t.Fatalf("docs/configuration.md: no bullet %q", head)
		}
		b := sec[i+1:]
		if j := strings.Index(b, "\n- **"); j >= 0 {
			b = b[:j]
		}
		return b
	}
	next, refused := bullet("at the next map load"), bullet("refused")
	for name, when := range settingWhen {
		text := next
		if when == applyRestart {
			text = refused
		}
		if !strings.Contains(text, "`"+name+"`") && !(strings.HasPrefix(name, "ec_") && strings.Contains(text, "`ec_*`")) {
			t.Errorf("docs/configuration.md: %s is not listed as taking effect %s", name, SettingTakesEffect(name))
		}
	}
}

package config

import (
	"os"
	"strings"
	"testing"
)

// FuzzCfg executes arbitrary bytes as a configuration file (whose exec
// commands reach the same bytes again under other names): loading never
// panics, and a configuration it returns without error is valid.
func FuzzCfg(f *testing.F) {
	if data, err := os.ReadFile("testdata/debian-server.cfg"); err == nil {
		f.Add(data)
	}
	for _, s := range []string{
		`sv_name "a \"b\" \\c"; sv_port 8304 # comment`,
		"add_vote \"Restart\" \"restart 5\"\nremove_vote restart\nclear_votes",
		"exec a.cfg\nexec b.cfg\nsv_maprotation x y\nsv_map z",
		"; sv_port 1\r\nsv_high_bandwidth 1\rconsole_output_level 9\x00junk",
		`bindaddr localhost; ec_port 0; tune gravity 1; sv_max_clients -5`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := NewLoader()
		l.MapDirs = []string{}
		l.ReadFile = func(p string) ([]byte, error) {
			if strings.HasSuffix(p, ".cfg") {
				return data, nil
			}
			return nil, os.ErrNotExist
		}
		if err := l.ExecFile("top.cfg"); err != nil {
			return
		}
		c, err := l.Finish()
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Finish returned an invalid configuration: %v", err)
		}
		if len(l.Warnings) > MaxWarnings {
			t.Fatalf("%d warnings", len(l.Warnings))
		}
	})
}

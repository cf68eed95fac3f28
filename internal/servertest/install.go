package servertest

import (
	"os"
	"testing"
)

// InstallBinary puts the file src at dst as an operator installs a new
// binary: a new file renamed over the old one, so a process running dst
// keeps its image and the next start of dst runs src.
func InstallBinary(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := dst + ".new"
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

package watchtest

import (
	"testing"
)

func TestGame(t *testing.T) {
	dir := t.TempDir()
	path, err := Game(dir, 90*50, 1)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Check(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d captures", path, n)
}

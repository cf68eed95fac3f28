// Package netns holds the check every test makes before it starts a real
// client or a reference server inside a private network namespace
// (`unshare --net`): loopback is up and nothing but loopback exists, so no
// packet and no name look-up can leave the machine.
package netns

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// LoopbackOnly brings up lo in the current network namespace and reports an
// error if the namespace has any other interface.
func LoopbackOnly() error {
	if b, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set lo up: %v %s", err, b)
	}
	links, err := exec.Command("ip", "-o", "link", "show").Output()
	if err != nil {
		return fmt.Errorf("ip link show: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(links)), "\n") {
		if f := strings.Fields(l); len(f) < 2 || f[1] != "lo:" {
			return fmt.Errorf("the namespace has interfaces other than lo:\n%s", links)
		}
	}
	return nil
}

// RequireLoopbackOnly is LoopbackOnly for tests: it stops the test (Fatal)
// before anything real is started in a namespace that is not private.
func RequireLoopbackOnly(tb testing.TB) {
	tb.Helper()
	if err := LoopbackOnly(); err != nil {
		tb.Fatalf("refusing to start real peers: %v", err)
	}
}

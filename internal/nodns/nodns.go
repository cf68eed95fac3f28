// Package nodns starts a reference server (teeworlds-server 0.7.5,
// DDNet-Server 16.4) with its host-name look-ups confined to the machine.
// Both servers look names up when they start, even with sv_register 0 (the
// 0.7.5 one asks the host's DNS resolver for its master servers). The
// project's rule is loopback traffic only, so every test and script starts
// them through this confinement: a private mount namespace of the server
// process alone (unshare --mount --propagation private; with
// --user --map-root-user when not root), in which confine.sh bind-mounts an
// nsswitch.conf saying "hosts: files", an /etc/hosts naming localhost only
// and a resolv.conf naming 127.0.0.1 over the host's, then execs the
// server. The network namespace is the caller's, so the test (the client)
// and the server still talk over loopback; the process id is the server's
// (unshare and sh exec, they do not fork it). The shell scripts use the
// same confine.sh (scripts/lib.sh: confine).
package nodns

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Script is confine.sh, the inside half of the confinement: run by sh in
// the new mount namespace with the server's command line as arguments.
//
//go:embed confine.sh
var Script string

// Prefix returns the words to put before a server's command line to start
// it confined: unshare's (with a user namespace when not root), then
// "sh -c Script nodns".
func Prefix() []string {
	p := []string{"unshare"}
	if os.Geteuid() != 0 {
		p = append(p, "--user", "--map-root-user")
	}
	return append(p, "--mount", "--propagation", "private", "--", "sh", "-c", Script, "nodns")
}

// Wrap returns argv (a server's command line) started confined.
func Wrap(argv ...string) []string {
	return append(Prefix(), argv...)
}

// Command is exec.Command for name and args, confined.
func Command(name string, args ...string) *exec.Cmd {
	w := Wrap(append([]string{name}, args...)...)
	return exec.Command(w[0], w[1:]...)
}

// CommandContext is exec.CommandContext for name and args, confined.
func CommandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	w := Wrap(append([]string{name}, args...)...)
	return exec.CommandContext(ctx, w[0], w[1:]...)
}

// Check reports whether a confined process can start here (unshare found,
// the namespaces and bind mounts allowed): it runs `true` confined.
func Check() error {
	if _, err := exec.LookPath("unshare"); err != nil {
		return fmt.Errorf("unshare (util-linux) not found: %v", err)
	}
	if out, err := Command("true").CombinedOutput(); err != nil {
		return fmt.Errorf("cannot confine name look-ups (%s): %v: %s", strings.Join(Prefix()[:len(Prefix())-5], " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

package handover

import (
	"net"
	"os"
	"strconv"
)

// NotifyMainPID tells systemd (when it started this process with
// NOTIFY_SOCKET set) that the unit's main process is now pid: the old
// process sends it for the new one before it exits, so the unit follows
// the upgrade (the unit needs NotifyAccess=main or all). Without
// NOTIFY_SOCKET it does nothing and returns nil.
func NotifyMainPID(pid int) error {
	return notify("MAINPID=" + strconv.Itoa(pid) + "\n")
}

// notify sends state to the socket NOTIFY_SOCKET names (a path, or an
// abstract name after '@').
func notify(state string) error {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return nil
	}
	if path[0] == '@' {
		path = "\x00" + path[1:]
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Write([]byte(state))
	return err
}

// Package handover passes a running twserver's sockets and state to a new
// process: the upgrade of a live server to a new binary or new settings.
//
// The old process (the parent) starts the new one (the child) from the path
// it was started from (Remember, Executable), with the same arguments and
// the sockets as inherited descriptors (exec.Cmd.ExtraFiles). The
// environment variable EnvVar names which descriptor is which:
//
//	TWSERVER_HANDOVER=v1;state=3;status=4;udp/0.0.0.0:8303=5;tcp/127.0.0.1:9100=6
//
// "state" is the read end of a pipe that carries the state: the line
// Format, then one JSON document (State), at most MaxState bytes, then the
// end of the pipe. "status" is the write end of a pipe back to the parent:
// the child writes "ready\n" once it serves (its sockets read, its games
// tick) or "refuse REASON\n" when it cannot take the state over (an unknown
// format, a changed port), and then exits. Every other key names an
// inherited socket.
//
// The parent stops its games' loops before it writes the state and keeps
// everything it has; Child.Wait returns Ready, or why the child failed:
// it exited, refused, or did not answer within ReadyTimeout (then it is
// killed). On failure the parent resumes; on Ready it exits, and the child
// goes on with the sockets.
//
// The package knows neither the server nor its games: cmd/twserver says
// which sockets and what state pass.
package handover

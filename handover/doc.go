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
// end of the pipe. "status" is the write end of a pipe back to the parent,
// one line per step. Every other key names an inherited socket.
//
// The dance: the child reads its configuration, checks it and writes
// "prepared\n" (within PrepareTimeout; the parent's games go on meanwhile).
// The parent then holds its games' loops, so nothing changes any more, and
// writes the state (Child.Hand). The child reads it, starts its games on
// the inherited sockets and writes "ready\n" once every game runs (within
// ReadyTimeout), or at any step "refuse REASON\n" when it cannot take the
// state over (an unknown format, a changed port) and exits. Child.Prepared
// and Child.Wait return Ready, or why the child failed: it exited, refused,
// or did not answer in time (then it is killed). The parent keeps
// everything until the child is ready: on a failure it resumes its games;
// on Ready it exits, and the child goes on with the sockets.
//
// The package knows neither the server nor its games: cmd/twserver says
// which sockets and what state pass.
package handover

//go:build !linux

package sockio

import "net"

// pacedSocket: no paced socket here; ListenUDP falls back to the batch
// socket with this reason.
func pacedSocket(*net.UDPConn) (PacedConn, error) { return nil, ErrNoPaced }

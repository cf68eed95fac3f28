//go:build !linux

package server

import "net"

// pacedSocket: no paced socket here; ListenUDP uses c as it is (the reader
// waits for every datagram).
func pacedSocket(c *net.UDPConn) (PacketConn, bool) { return nil, false }

// Package sockio owns the game's datagram sockets: the PacketConn interface
// and its batch (BatchConn) and paced (PacedConn) forms, the UDP sockets
// that implement them, the send batch, and MemNet, the in-memory twin the
// tests run servers on. It moves datagrams and nothing else: it knows no
// client, no game and no protocol beyond the largest packet's size.
//
// The sockets:
//
//   - the paced socket (KindPaced, paced_linux.go), the game socket on
//     Linux: outside the Go runtime's poller, read without waiting at the
//     caller's ticks (ReadPaced, with the kernel's arrival stamps) or
//     blocking in the kernel (ReadBatch), pausing under a flood;
//   - the batch socket (KindBatch, batch_linux.go): read through the
//     runtime's poller with recvmmsg, leaving the poller and pausing under a
//     flood (FloodReadRate); on other systems one datagram per system call.
//
// ListenUDP opens the paced socket where it can be set up and the batch
// socket otherwise, and returns the Choice with the reason for a fallback,
// which the caller reports (package server logs a warning and exports
// twserver_socket_info{kind}). ListenPaced and ListenBatch open one socket
// explicitly. Pacer (pacer.go) is the hand-over of paced reading between a
// reader goroutine and its game loop, and its bounds (PacedHold,
// PacedBusyDatagrams).
//
// Who calls what. Package server opens the socket (ListenUDP) or takes one
// handed in (a MemConn in tests). Its reader goroutine is the one reader:
// ReadFrom, ReadBatch and ReadPaced are called by one goroutine at a time
// (the reader, or the game loop while the reader has handed the paced
// reads over to it). WriteTo and WriteBatch may be called from any
// goroutine (the loop writes its SendBatch, the reader answers
// connectionless requests). A SendBatch belongs to one goroutine. Close may
// be called from any goroutine and wakes a waiting reader with
// net.ErrClosed (ErrClosed for a MemConn).
//
// Steady-state reads and writes allocate nothing (TestUDPBatchAllocs,
// TestUDPFloodReadAllocs, TestReadPacedStamps).
package sockio

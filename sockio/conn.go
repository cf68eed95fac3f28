package sockio

import (
	"net/netip"
	"time"
)

// PacketConn is a datagram socket: the game socket of ListenUDP, or one
// endpoint of the in-memory twin (MemNet). ReadFrom is called by one
// goroutine only; WriteTo may be called concurrently.
type PacketConn interface {
	// ReadFrom reads one datagram into b. A datagram larger than b is truncated
	// and reported with n == len(b) so the caller can reject it.
	ReadFrom(b []byte) (n int, addr netip.AddrPort, err error)
	// WriteTo sends one datagram.
	WriteTo(b []byte, addr netip.AddrPort) (int, error)
	// LocalAddr is the address the socket is bound to.
	LocalAddr() netip.AddrPort
	// Close unblocks ReadFrom and releases the socket.
	Close() error
}

// Batched socket I/O. A caller writes every datagram of a wake-up with one
// WriteBatch call (sendmmsg on Linux) instead of one system call per
// datagram, and reads every datagram already queued on the socket with one
// ReadBatch call (recvmmsg). A PacketConn without the batch form (a test
// double) is written one datagram at a time (SendBatch.Flush).

// Bounds of the batches.
const (
	// SendBatchSize is the most datagrams a SendBatch collects before
	// writing them with one WriteBatch call; a wake-up with more writes
	// several batches (a 63-client snapshot tick fills one or two).
	SendBatchSize = 64
	// ReadBatchSize is the most datagrams one ReadBatch or ReadPaced call
	// returns.
	ReadBatchSize = 32
)

// Datagram is one datagram of a batch. For WriteBatch, Buf[:N] is sent to
// Addr; for ReadBatch, Buf is the buffer to fill, and N and Addr are set to
// the length and sender of what was read (a datagram longer than Buf is
// truncated to len(Buf)).
type Datagram struct {
	Buf  []byte
	N    int
	Addr netip.AddrPort
}

// BatchConn is a PacketConn that moves several datagrams per call. The UDP
// sockets of ListenUDP and MemConn implement it.
type BatchConn interface {
	PacketConn
	// WriteBatch sends ms in order and returns how many were sent; an error
	// stops the batch at the datagram that failed. It may be called
	// concurrently with WriteTo.
	WriteBatch(ms []Datagram) (int, error)
	// ReadBatch blocks until at least one datagram arrives, then fills up to
	// len(ms) of them without waiting for more, and returns how many. It is
	// called by one goroutine only.
	ReadBatch(ms []Datagram) (int, error)
}

// PacedConn is a BatchConn that can also read without waiting and report
// when each datagram arrived: the paced socket (KindPaced), on Linux only.
type PacedConn interface {
	BatchConn
	// ReadPaced reads up to len(ms) datagrams already queued (at most
	// ReadBatchSize), without waiting: 0 when none is. at[i] is the arrival
	// time of datagram i. It is called by one goroutine at a time, never
	// concurrently with ReadBatch (the caller hands the reading over).
	ReadPaced(ms []Datagram, at []time.Time) (int, error)
}

package netproto

import "time"

// Sizes and bounds of the 0.7 packet layer (spec A1.1). Every buffer and
// counter in this package is bounded by one of these constants.
const (
	// MaxPacketSize is the largest UDP payload accepted or produced (NET_MAX_PACKETSIZE).
	MaxPacketSize = 1400
	// PacketHeaderSize is the size of the 0.7 connection header (NET_PACKETHEADERSIZE).
	PacketHeaderSize = 7
	// ConnlessHeaderSize is the size of the 0.7 connless header (NET_PACKETHEADERSIZE_CONNLESS).
	ConnlessHeaderSize = 9
	// MaxPayload is the largest packet payload after the header, raw or decompressed (NET_MAX_PAYLOAD).
	MaxPayload = MaxPacketSize - ConnlessHeaderSize
	// MaxConnPacketSize is the largest valid 0.7 connection datagram (header + MaxPayload).
	MaxConnPacketSize = PacketHeaderSize + MaxPayload
	// MaxChunkHeaderSize is the largest 0.7 chunk header (NET_MAX_CHUNKHEADERSIZE).
	MaxChunkHeaderSize = 3
	// MaxChunkSize is the largest message a chunk may carry: size+3 must stay below MaxPayload.
	MaxChunkSize = MaxPayload - MaxChunkHeaderSize - 1
	// MaxChunkSizeField is the largest value the 12-bit chunk size field can hold.
	MaxChunkSizeField = 1<<12 - 1
	// MaxPacketChunks is the most chunks we put in one packet (the count byte is 8 bit; the reference's 256 would wrap to 0).
	MaxPacketChunks = 255
	// MaxSequence is the size of the vital sequence space (NET_MAX_SEQUENCE, 10 bit).
	MaxSequence = 1024
	// SequenceMask masks a value into the sequence space.
	SequenceMask = MaxSequence - 1
	// BackroomSize is the width of the window of already-seen sequence numbers ending at the ack.
	BackroomSize = MaxSequence / 2
	// ConnBufferSize is the number of bytes of chunk data kept for resending per connection (NET_CONN_BUFFERSIZE).
	ConnBufferSize = 32768
	// MaxResendChunks is the most vital chunks kept unacked per connection (half the sequence space, or acks become ambiguous).
	MaxResendChunks = BackroomSize - 1
	// OutboxPackets is the most finished datagrams a Conn holds until polled (a full 64-part snapshot fits).
	OutboxPackets = 128
	// TokenRequestDataSize is the minimum extra data of a token request or connect (NET_TOKENREQUEST_DATASIZE).
	TokenRequestDataSize = 512
	// TokenControlSize is the payload size of a padded TOKEN request or CONNECT: control byte + 512 bytes.
	TokenControlSize = 1 + TokenRequestDataSize
	// MaxCloseReason is the most bytes of a received CLOSE reason that are kept.
	MaxCloseReason = 127
	// PackerBufferSize is the capacity of a Packer (the reference CPacker buffer).
	PackerBufferSize = 2048
	// MaxVarintSize is the longest varint encoding of a 32-bit value.
	MaxVarintSize = 5
	// MaxInputInts is the most ints an INPUT message may carry (MAX_INPUT_SIZE).
	MaxInputInts = 128
	// MaxSnapPartSize is the largest snapshot part payload in one SNAP message.
	MaxSnapPartSize = 900
	// MaxSnapParts is the most parts a snapshot may be split into.
	MaxSnapParts = 64
	// MapChunkSize is the reference 0.7 map download chunk size (MAP_CHUNK_SIZE).
	MapChunkSize = MaxPayload - MaxChunkHeaderSize - 4
	// MaxClients is the number of connection slots of the reference (NET_MAX_CLIENTS).
	MaxClients = 64
)

// Timers of the 0.7 reference connection (spec A1.6-A1.8), hard-coded there.
const (
	// TimeoutDuration is how long a connected peer may stay silent before "Timeout".
	TimeoutDuration = 10 * time.Second
	// TokenTimeout is how long a client waits in the TOKEN state before giving up.
	TokenTimeout = 5 * time.Second
	// HandshakeResendInterval is how often token requests, CONNECT and ACCEPT are repeated.
	HandshakeResendInterval = 500 * time.Millisecond
	// FlushInterval is the idle time after which queued chunks are flushed.
	FlushInterval = 500 * time.Millisecond
	// KeepAliveInterval is the idle time after which a KEEPALIVE is sent.
	KeepAliveInterval = time.Second
	// ResendInterval is the time after which an unacked vital chunk is sent again.
	ResendInterval = time.Second
	// ResendTimeout is the time after which an unacked vital chunk closes the connection.
	ResendTimeout = 10 * time.Second
	// SeedRotation is the period of the token secret rotation (NET_SEEDTIME).
	SeedRotation = 16 * time.Second
	// TickDuration is the duration of one server tick (SERVER_TICK_SPEED = 50).
	TickDuration = 20 * time.Millisecond
)

// Sizes of the 0.6 packet layer (spec B1.1).
const (
	// PacketHeaderSize6 is the size of the 0.6 connection header.
	PacketHeaderSize6 = 3
	// ConnlessHeaderSize6 is the size of the 0.6 connless header.
	ConnlessHeaderSize6 = 6
	// MaxPayload6 is the largest 0.6 payload, raw or decompressed.
	MaxPayload6 = MaxPacketSize - ConnlessHeaderSize6
	// MaxConnPacketSize6 is the largest valid 0.6 connection datagram.
	MaxConnPacketSize6 = PacketHeaderSize6 + MaxPayload6
	// MaxChunkSize6 is the largest 0.6 message: the chunk size field has 10 bits.
	MaxChunkSize6 = 1<<10 - 1
)

// String limits the reference applies when packing system messages (spec A3.1).
const (
	// MaxVersionLen bounds INFO's version string.
	MaxVersionLen = 128
	// MaxPasswordLen bounds INFO's password string.
	MaxPasswordLen = 128
	// MaxRconLineLen bounds RCON_LINE.
	MaxRconLineLen = 512
	// MaxRconCmdNameLen bounds RCON_CMD_ADD's name.
	MaxRconCmdNameLen = 32
	// MaxRconCmdHelpLen bounds RCON_CMD_ADD's help and params.
	MaxRconCmdHelpLen = 96
	// MaxRconCmdLen bounds RCON_CMD, RCON_CMD_REM and map list names.
	MaxRconCmdLen = 256
	// MaxRconPasswordLen bounds RCON_AUTH's password.
	MaxRconPasswordLen = 32
)

// ServerInfo string limits (spec A6.2).
const (
	// MaxInfoVersionLen bounds the server version string.
	MaxInfoVersionLen = 32
	// MaxInfoNameLen bounds the server name.
	MaxInfoNameLen = 64
	// MaxInfoHostnameLen bounds the host name.
	MaxInfoHostnameLen = 128
	// MaxInfoMapLen bounds the map name.
	MaxInfoMapLen = 32
	// MaxInfoGameTypeLen bounds the game type.
	MaxInfoGameTypeLen = 16
)

// outboxSlotSize is the capacity of one Conn outbox slot: MaxPacketSize plus room for the few bytes (at most 6) an abandoned compression attempt writes past its limit.
const outboxSlotSize = MaxPacketSize + 16

// Bounds of a Conn's retransmissions (see Conn.Update and Conn.Feed).
const (
	// resendScan bounds how many of the oldest unacked chunks Update inspects.
	resendScan = 64
	// resendBudget bounds the chunk bytes (headers included) one Update queues again: one packet's payload.
	resendBudget = MaxPayload
	// resendFlagInterval is the least time between two resends of the whole buffer at the peer's request (RESEND flag).
	resendFlagInterval = 100 * time.Millisecond
	// gapFlagInterval is how often Update repeats the RESEND flag while a
	// received vital chunk is missing (one small datagram per interval).
	gapFlagInterval = 50 * time.Millisecond
	// MaxCopies bounds how many times Conn.SetCopies lets a vital chunk go
	// out (the vital bytes at most triple).
	MaxCopies = 3
)

// Compile-time checks that one Update's resends fit in one packet.
const (
	_ = uint(MaxPacketChunks - resendScan)
	_ = uint(resendBudget - (MaxChunkSize + MaxChunkHeaderSize))
)

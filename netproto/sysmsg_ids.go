package netproto

// 0.7 system message ids (spec A3.1, NETMSG_*). On the wire a chunk starts with
// the varint (id<<1)|1 for system messages.
const (
	// NetmsgNull is NETMSG_NULL, never sent.
	NetmsgNull = 0
	// NetmsgInfo is NETMSG_INFO (C→S): version, password, client version.
	NetmsgInfo = 1
	// NetmsgMapChange is NETMSG_MAP_CHANGE (S→C).
	NetmsgMapChange = 2
	// NetmsgMapData is NETMSG_MAP_DATA (S→C): raw map bytes.
	NetmsgMapData = 3
	// NetmsgServerInfo is NETMSG_SERVERINFO (S→C).
	NetmsgServerInfo = 4
	// NetmsgConReady is NETMSG_CON_READY (S→C).
	NetmsgConReady = 5
	// NetmsgSnap is NETMSG_SNAP (S→C): one part of a multi-part snapshot.
	NetmsgSnap = 6
	// NetmsgSnapEmpty is NETMSG_SNAPEMPTY (S→C).
	NetmsgSnapEmpty = 7
	// NetmsgSnapSingle is NETMSG_SNAPSINGLE (S→C).
	NetmsgSnapSingle = 8
	// NetmsgSnapSmall is NETMSG_SNAPSMALL, unused.
	NetmsgSnapSmall = 9
	// NetmsgInputTiming is NETMSG_INPUTTIMING (S→C).
	NetmsgInputTiming = 10
	// NetmsgRconAuthOn is NETMSG_RCON_AUTH_ON (S→C).
	NetmsgRconAuthOn = 11
	// NetmsgRconAuthOff is NETMSG_RCON_AUTH_OFF (S→C).
	NetmsgRconAuthOff = 12
	// NetmsgRconLine is NETMSG_RCON_LINE (S→C).
	NetmsgRconLine = 13
	// NetmsgRconCmdAdd is NETMSG_RCON_CMD_ADD (S→C).
	NetmsgRconCmdAdd = 14
	// NetmsgRconCmdRem is NETMSG_RCON_CMD_REM (S→C).
	NetmsgRconCmdRem = 15
	// NetmsgAuthChallenge is NETMSG_AUTH_CHALLANGE, unused.
	NetmsgAuthChallenge = 16
	// NetmsgAuthResult is NETMSG_AUTH_RESULT, unused.
	NetmsgAuthResult = 17
	// NetmsgReady is NETMSG_READY (C→S).
	NetmsgReady = 18
	// NetmsgEnterGame is NETMSG_ENTERGAME (C→S).
	NetmsgEnterGame = 19
	// NetmsgInput is NETMSG_INPUT (C→S).
	NetmsgInput = 20
	// NetmsgRconCmd is NETMSG_RCON_CMD (C→S).
	NetmsgRconCmd = 21
	// NetmsgRconAuth is NETMSG_RCON_AUTH (C→S).
	NetmsgRconAuth = 22
	// NetmsgRequestMapData is NETMSG_REQUEST_MAP_DATA (C→S).
	NetmsgRequestMapData = 23
	// NetmsgAuthStart is NETMSG_AUTH_START, unused.
	NetmsgAuthStart = 24
	// NetmsgAuthResponse is NETMSG_AUTH_RESPONSE, unused.
	NetmsgAuthResponse = 25
	// NetmsgPing is NETMSG_PING (both directions).
	NetmsgPing = 26
	// NetmsgPingReply is NETMSG_PING_REPLY (both directions).
	NetmsgPingReply = 27
	// NetmsgError is NETMSG_ERROR, unused.
	NetmsgError = 28
	// NetmsgMaplistEntryAdd is NETMSG_MAPLIST_ENTRY_ADD (S→C).
	NetmsgMaplistEntryAdd = 29
	// NetmsgMaplistEntryRem is NETMSG_MAPLIST_ENTRY_REM (S→C).
	NetmsgMaplistEntryRem = 30
)

// 0.6 / DDNet system message ids (spec B3.1, NETMSG_*).
const (
	// Netmsg6Ex is NETMSG_EX: DDNet extended (UUID) message.
	Netmsg6Ex = 0
	// Netmsg6Info is NETMSG_INFO (0.6): version, password.
	Netmsg6Info = 1
	// Netmsg6MapChange is NETMSG_MAP_CHANGE (0.6): name, crc, size.
	Netmsg6MapChange = 2
	// Netmsg6MapData is NETMSG_MAP_DATA (0.6): last, crc, chunk, size, data.
	Netmsg6MapData = 3
	// Netmsg6ConReady is NETMSG_CON_READY (0.6).
	Netmsg6ConReady = 4
	// Netmsg6Snap is NETMSG_SNAP (0.6).
	Netmsg6Snap = 5
	// Netmsg6SnapEmpty is NETMSG_SNAPEMPTY (0.6).
	Netmsg6SnapEmpty = 6
	// Netmsg6SnapSingle is NETMSG_SNAPSINGLE (0.6).
	Netmsg6SnapSingle = 7
	// Netmsg6SnapSmall is NETMSG_SNAPSMALL (0.6), unused.
	Netmsg6SnapSmall = 8
	// Netmsg6InputTiming is NETMSG_INPUTTIMING (0.6).
	Netmsg6InputTiming = 9
	// Netmsg6RconAuthStatus is NETMSG_RCON_AUTH_STATUS (0.6).
	Netmsg6RconAuthStatus = 10
	// Netmsg6RconLine is NETMSG_RCON_LINE (0.6).
	Netmsg6RconLine = 11
	// Netmsg6AuthChallenge is NETMSG_AUTH_CHALLANGE (0.6), unused.
	Netmsg6AuthChallenge = 12
	// Netmsg6AuthResult is NETMSG_AUTH_RESULT (0.6), unused.
	Netmsg6AuthResult = 13
	// Netmsg6Ready is NETMSG_READY (0.6).
	Netmsg6Ready = 14
	// Netmsg6EnterGame is NETMSG_ENTERGAME (0.6).
	Netmsg6EnterGame = 15
	// Netmsg6Input is NETMSG_INPUT (0.6, no ping correction).
	Netmsg6Input = 16
	// Netmsg6RconCmd is NETMSG_RCON_CMD (0.6).
	Netmsg6RconCmd = 17
	// Netmsg6RconAuth is NETMSG_RCON_AUTH (0.6): name, password, optional int.
	Netmsg6RconAuth = 18
	// Netmsg6RequestMapData is NETMSG_REQUEST_MAP_DATA (0.6): chunk index.
	Netmsg6RequestMapData = 19
	// Netmsg6AuthStart is NETMSG_AUTH_START (0.6), unused.
	Netmsg6AuthStart = 20
	// Netmsg6AuthResponse is NETMSG_AUTH_RESPONSE (0.6), unused.
	Netmsg6AuthResponse = 21
	// Netmsg6Ping is NETMSG_PING (0.6).
	Netmsg6Ping = 22
	// Netmsg6PingReply is NETMSG_PING_REPLY (0.6).
	Netmsg6PingReply = 23
	// Netmsg6Error is NETMSG_ERROR (0.6), unused.
	Netmsg6Error = 24
	// Netmsg6RconCmdAdd is NETMSG_RCON_CMD_ADD (0.6).
	Netmsg6RconCmdAdd = 25
	// Netmsg6RconCmdRem is NETMSG_RCON_CMD_REM (0.6).
	Netmsg6RconCmdRem = 26
)

// AppendMsgHeader appends the message header varint (id<<1 | system).
func AppendMsgHeader(dst []byte, id int32, system bool) []byte {
	h := id << 1
	if system {
		h |= 1
	}
	return AppendInt(dst, h)
}

// ParseMsgHeader reads the message header at the start of a chunk and returns
// the id, the system flag and the header length.
func ParseMsgHeader(b []byte) (id int32, system bool, n int, err error) {
	h, n, err := ParseInt(b)
	if err != nil {
		return 0, false, 0, err
	}
	return h >> 1, h&1 != 0, n, nil
}

// SysID6 maps a 0.7 system message id whose layout 0.6 shares to the 0.6
// id (net.md B7); false for messages 0.6 does not have.
func SysID6(id int32) (int32, bool) {
	switch id {
	case NetmsgConReady:
		return Netmsg6ConReady, true
	case NetmsgInputTiming:
		return Netmsg6InputTiming, true
	case NetmsgRconLine:
		return Netmsg6RconLine, true
	case NetmsgRconCmdAdd:
		return Netmsg6RconCmdAdd, true
	case NetmsgRconCmdRem:
		return Netmsg6RconCmdRem, true
	case NetmsgPing:
		return Netmsg6Ping, true
	case NetmsgPingReply:
		return Netmsg6PingReply, true
	case NetmsgRconAuthOn, NetmsgRconAuthOff:
		return Netmsg6RconAuthStatus, true
	}
	return 0, false
}

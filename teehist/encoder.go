package teehist

import "twserver/netproto"

// prevPlayer is the encoder's memory of one client id.
type prevPlayer struct {
	alive     bool
	x, y      int32
	hasInput  bool
	conn      uint32
	input     Input
	direct    Input // last direct input of the current connection (ExDirectInput base)
	hasDirect bool
	fresh     bool // a checkpoint came since the last position: the next one is PLAYER_NEW
}

// Encoder turns recording calls into teehistorian bytes with the reference
// writer's tick rules (world.md 6.5): a tick is written implicitly when the
// first player record of the tick has a client id not above the previous
// tick's last one, otherwise as TICK_SKIP. It appends to an internal buffer
// that the caller takes with Take. An Encoder is not safe for concurrent use.
//
// Call order per tick: BeginTick, BeginPlayers, RecordPlayer/RecordDeadPlayer
// for client ids in ascending order, then any other records (inputs,
// messages, joins, drops, console commands, extensions) until the next
// BeginTick. Records before the first BeginTick belong to tick 0.
type Encoder struct {
	buf             []byte
	tick            int32
	lastWrittenTick int32
	tickWritten     bool
	maxCID          int32
	prevMaxCID      int32
	prev            [MaxClients]prevPlayer
	teams           [MaxClients]int32 // PLAYER_TEAM state, 0 by default
	latency         [MaxClients]int32 // LATENCY state, 0 from PLAYER_READY on
	practice        [MaxClients + 1]bool
	scratch         []byte
	ckpt            []byte // RecordCheckpoint's payload
}

// NewEncoder returns an Encoder in the start state (tick 0 implicit).
func NewEncoder() *Encoder {
	e := &Encoder{}
	e.Reset()
	return e
}

// Reset returns e to the start state, keeping its buffers.
func (e *Encoder) Reset() {
	e.buf = e.buf[:0]
	e.tick, e.lastWrittenTick = 0, 0
	e.tickWritten = true
	e.maxCID = MaxClients
	e.prevMaxCID = MaxClients
	e.prev = [MaxClients]prevPlayer{}
	e.teams = [MaxClients]int32{}
	e.latency = [MaxClients]int32{}
	e.practice = [MaxClients + 1]bool{}
}

// Len returns the number of bytes waiting in the buffer.
func (e *Encoder) Len() int { return len(e.buf) }

// Take appends the buffered bytes to dst, empties the buffer and returns dst.
func (e *Encoder) Take(dst []byte) []byte {
	dst = append(dst, e.buf...)
	e.buf = e.buf[:0]
	return dst
}

// Clear drops the buffered bytes.
func (e *Encoder) Clear() { e.buf = e.buf[:0] }

// Bytes returns the buffered bytes (valid until the next call).
func (e *Encoder) Bytes() []byte { return e.buf }

// WriteHeader appends the magic UUID, the header JSON and its NUL.
func (e *Encoder) WriteHeader(h *Header) {
	e.buf = append(e.buf, Magic[:]...)
	e.buf = h.AppendJSON(e.buf)
	e.buf = append(e.buf, 0)
}

// Tick returns the current tick (set by BeginTick).
func (e *Encoder) Tick() int32 { return e.tick }

// BeginTick starts tick t (t greater than every previous tick).
func (e *Encoder) BeginTick(t int32) {
	e.tick = t
	e.tickWritten = false
}

// BeginPlayers starts the player records of the current tick.
func (e *Encoder) BeginPlayers() {
	e.prevMaxCID = e.maxCID
	e.maxCID = -1
}

func (e *Encoder) ints(v ...int32) {
	for _, x := range v {
		e.buf = netproto.AppendInt(e.buf, x)
	}
}

func (e *Encoder) writeTick() {
	e.ints(int32(KindTickSkip), e.tick-e.lastWrittenTick-1)
	e.tickWritten = true
	e.lastWrittenTick = e.tick
}

func (e *Encoder) ensureTickWritten() {
	if !e.tickWritten {
		e.writeTick()
	}
}

func (e *Encoder) ensureTickWrittenPlayer(cid int32) {
	e.maxCID = cid
	if !e.tickWritten && (cid > e.prevMaxCID || e.lastWrittenTick+1 != e.tick) {
		e.writeTick()
		return
	}
	e.lastWrittenTick = e.tick
	e.tickWritten = true
}

func validCID(cid int) bool { return cid >= 0 && cid < MaxClients }

// RecordPlayer records that client cid has a character at (x, y): PLAYER_NEW
// if it had none in the previous record, PLAYER_DIFF if it moved, nothing
// otherwise. Client ids must ascend within a tick; a call with a cid not
// above the previous one of this tick, or out of range, is ignored.
func (e *Encoder) RecordPlayer(cid int, x, y int32) {
	if !validCID(cid) || int32(cid) <= e.maxCID && e.maxCID != MaxClients {
		return
	}
	p := &e.prev[cid]
	if !p.alive || p.fresh || p.x != x || p.y != y {
		e.ensureTickWrittenPlayer(int32(cid))
		if p.alive && !p.fresh {
			e.ints(int32(cid), x-p.x, y-p.y)
		} else {
			e.ints(int32(KindPlayerNew), int32(cid), x, y)
		}
	}
	p.alive, p.x, p.y, p.fresh = true, x, y, false
}

// RecordDeadPlayer records that client cid has no character (PLAYER_OLD if
// it had one). The ordering rule of RecordPlayer applies.
func (e *Encoder) RecordDeadPlayer(cid int) {
	if !validCID(cid) || int32(cid) <= e.maxCID && e.maxCID != MaxClients {
		return
	}
	p := &e.prev[cid]
	if p.alive {
		e.ensureTickWrittenPlayer(int32(cid))
		e.ints(int32(KindPlayerOld), int32(cid))
	}
	p.alive, p.fresh = false, false
}

// RecordInput records the input of client cid on connection conn (a number
// the caller increments per connection): INPUT_NEW for the first input of a
// connection, INPUT_DIFF for a changed one, nothing for an unchanged one.
func (e *Encoder) RecordInput(cid int, conn uint32, in *Input) {
	if !validCID(cid) {
		return
	}
	p := &e.prev[cid]
	if p.hasInput && p.conn == conn {
		if p.input == *in {
			return
		}
		e.ensureTickWritten()
		e.ints(int32(KindInputDiff), int32(cid))
		for i := range in {
			e.ints(in[i] - p.input[i])
		}
	} else {
		e.ensureTickWritten()
		e.ints(int32(KindInputNew), int32(cid))
		e.ints(in[:]...)
	}
	p.hasInput, p.conn, p.input = true, conn, *in
}

// HasInput reports whether an input of connection conn of client cid was recorded.
func (e *Encoder) HasInput(cid int, conn uint32) bool {
	return validCID(cid) && e.prev[cid].hasInput && e.prev[cid].conn == conn
}

// RecordMessage records a game message received from client cid, msg being
// the whole packed message including its id header.
func (e *Encoder) RecordMessage(cid int, msg []byte) {
	e.ensureTickWritten()
	e.ints(int32(KindMessage), int32(cid), int32(len(msg)))
	e.buf = append(e.buf, msg...)
}

// RecordJoin records an engine-level connect of client cid: JOINVER7 (or
// JOINVER6) followed by JOIN. It starts a new direct-input base for cid.
func (e *Encoder) RecordJoin(cid int, ver7 bool) {
	k := ExJoinVer6
	if ver7 {
		k = ExJoinVer7
	}
	e.RecordExInts(k, int32(cid))
	e.ints(int32(KindJoin), int32(cid))
	if validCID(cid) {
		e.prev[cid].hasDirect = false
	}
}

// RecordDrop records that client cid left, with the reason.
func (e *Encoder) RecordDrop(cid int, reason string) {
	e.ensureTickWritten()
	e.ints(int32(KindDrop), int32(cid))
	e.str(reason)
	if validCID(cid) {
		e.prev[cid].hasDirect = false
	}
}

func (e *Encoder) str(s string) {
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, 0)
}

// RecordConsoleCommand records an executed console command: the issuing
// client (or a negative pseudo id, -1 = server console), the flag mask, the
// command name and its arguments.
func (e *Encoder) RecordConsoleCommand(cid int, flags int32, cmd string, args []string) {
	e.ensureTickWritten()
	e.ints(int32(KindConsoleCommand), int32(cid), flags)
	e.str(cmd)
	e.ints(int32(len(args)))
	for _, a := range args {
		e.str(a)
	}
}

// RecordEx records an extension message with a raw payload.
func (e *Encoder) RecordEx(u UUID, payload []byte) {
	e.ensureTickWritten()
	e.ints(int32(KindEx))
	e.buf = append(e.buf, u[:]...)
	e.ints(int32(len(payload)))
	e.buf = append(e.buf, payload...)
}

// RecordExInts records an extension message whose payload is ints.
func (e *Encoder) RecordExInts(k ExKind, v ...int32) {
	p := e.scratch[:0]
	for _, x := range v {
		p = netproto.AppendInt(p, x)
	}
	e.scratch = p
	e.RecordEx(ExTable[k].UUID, p)
}

// RecordExIntStr records an extension message of ints followed by one string
// (AUTH_INIT, AUTH_LOGIN: cid, level, name; PLAYER_NAME: cid, name).
func (e *Encoder) RecordExIntStr(k ExKind, s string, v ...int32) {
	p := e.scratch[:0]
	for _, x := range v {
		p = netproto.AppendInt(p, x)
	}
	p = append(p, s...)
	p = append(p, 0)
	e.scratch = p
	e.RecordEx(ExTable[k].UUID, p)
}

// RecordPlayerReady records that client cid entered the game (PLAYER_READY).
func (e *Encoder) RecordPlayerReady(cid int) {
	if validCID(cid) {
		e.latency[cid] = 0 // a new world player
	}
	e.RecordExInts(ExPlayerReady, int32(cid))
}

// RecordPlayerName records the (new) name of client cid (PLAYER_NAME).
func (e *Encoder) RecordPlayerName(cid int, name string) {
	e.RecordExIntStr(ExPlayerName, name, int32(cid))
}

// RecordAuthLogin records a remote console login with a level and account name.
func (e *Encoder) RecordAuthLogin(cid int, level int32, name string) {
	e.RecordExIntStr(ExAuthLogin, name, int32(cid), level)
}

// RecordAuthLogout records a remote console logout.
func (e *Encoder) RecordAuthLogout(cid int) { e.RecordExInts(ExAuthLogout, int32(cid)) }

// RecordDirectInput records an input handled on arrival (between ticks) as
// the difference to the previous direct input of the same connection
// (twserver extension ExDirectInput).
func (e *Encoder) RecordDirectInput(cid int, in *Input) {
	if !validCID(cid) {
		return
	}
	p := &e.prev[cid]
	var v [1 + InputSize]int32
	v[0] = int32(cid)
	for i := range in {
		v[1+i] = in[i]
		if p.hasDirect {
			v[1+i] -= p.direct[i]
		}
	}
	p.direct, p.hasDirect = *in, true
	e.RecordExInts(ExDirectInput, v[:]...)
}

// RecordCheckpoint records state, the whole world state (package
// worldstate) as of the coming tick's inputs, its zero runs coded
// (AppendZeroRuns: a state is mostly zero bytes), as CHECKPOINT records of
// WorldStatePart bytes (the last one shorter, possibly empty), and starts
// new bases after it, so that a reader can begin right after it: the next
// position of a character is a PLAYER_NEW, the next input of a client an
// INPUT_NEW, the next direct input a whole one (no INPUT_MISSING before a
// client's next input).
func (e *Encoder) RecordCheckpoint(state []byte) {
	e.ckpt = AppendZeroRuns(e.ckpt[:0], state)
	for p := e.ckpt; ; {
		n := min(len(p), WorldStatePart)
		e.RecordEx(ExTable[ExCheckpoint].UUID, p[:n])
		if p = p[n:]; n < WorldStatePart {
			break
		}
	}
	for i := range e.prev {
		p := &e.prev[i]
		p.fresh = p.alive
		p.hasInput, p.hasDirect = false, false
	}
}

// RecordInputMissing records that client cid had no input for the coming
// tick (twserver extension ExInputMissing).
func (e *Encoder) RecordInputMissing(cid int) { e.RecordExInts(ExInputMissing, int32(cid)) }

// RecordLatency records the latency in ms the coming tick's per-second
// update shows for client cid, when it differs from the last one recorded
// for cid since its join (twserver extension ExLatency; a new player starts
// at 0, as in the world).
func (e *Encoder) RecordLatency(cid int, ms int32) {
	if !validCID(cid) || e.latency[cid] == ms {
		return
	}
	e.latency[cid] = ms
	e.RecordExInts(ExLatency, int32(cid), ms)
}

// RecordSnapSkipped records that the coming tick is a snapshot tick on
// which the server sends no snapshots (its loop catching up) and so does
// not call World.PostSnap: the tick's events stay for the next snapshot
// (twserver extension ExSnapSkipped).
func (e *Encoder) RecordSnapSkipped(tick int32) { e.RecordExInts(ExSnapSkipped, tick) }

// RecordPlayerBot records that the connection of cid that just joined is a
// bot of the given skill (0 easy, 1 normal, 2 hard; twserver extension
// ExPlayerBot), before its PLAYER_READY.
func (e *Encoder) RecordPlayerBot(cid int, skill int32) {
	e.RecordExInts(ExPlayerBot, int32(cid), skill)
}

// RecordServerMsg records a game message the server sent to everybody
// (msg: its 0.7 encoding, message header included; twserver extension
// ExServerMsg): chat lines, emoticons, skin changes, votes, broadcasts and
// the other messages the world's simulation does not make, as they went out.
func (e *Encoder) RecordServerMsg(msg []byte) { e.RecordEx(ExTable[ExServerMsg].UUID, msg) }

// RecordPlayerTeam records the team of client cid if it changed (teams
// start at 0), as PLAYER_TEAM.
func (e *Encoder) RecordPlayerTeam(cid int, team int32) {
	if !validCID(cid) || e.teams[cid] == team {
		return
	}
	e.teams[cid] = team
	e.RecordExInts(ExPlayerTeam, int32(cid), team)
}

// RecordTeamPractice records a change of a team's practice mode (TEAM_PRACTICE).
func (e *Encoder) RecordTeamPractice(team int, practice bool) {
	if team < 0 || team > MaxClients || e.practice[team] == practice {
		return
	}
	e.practice[team] = practice
	v := int32(0)
	if practice {
		v = 1
	}
	e.RecordExInts(ExTeamPractice, int32(team), v)
}

// Finish writes FINISH, the last message of a file.
func (e *Encoder) Finish() { e.ints(int32(KindFinish)) }

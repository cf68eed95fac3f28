// Package teehist reads and writes teehistorian files, the complete input log
// of a game (world.md section 6): a magic UUID, a JSON header and a stream of
// varint-encoded messages (player positions, inputs, client messages, joins,
// drops, console commands and extension messages) until FINISH.
//
// Encoder produces the byte stream with the reference writer's tick rules;
// File writes it asynchronously to disk with rotation and a disk-full policy;
// Reader parses any teehistorian file (ours or DDNet's) message by message and
// reports malformed input as an error carrying the byte offset.
package teehist

import "fmt"

// Kind is a teehistorian message id. Non-negative ids are PLAYER_DIFF for that
// client id; the reader normalises them to KindPlayerDiff with CID set.
type Kind int32

// Message ids (world.md 6.4, TEEHISTORIAN_* negated).
const (
	KindPlayerDiff     Kind = 0   // PLAYER_DIFF (ids 0..63): cid, dx, dy
	KindFinish         Kind = -1  // FINISH
	KindTickSkip       Kind = -2  // TICK_SKIP: dt
	KindPlayerNew      Kind = -3  // PLAYER_NEW: cid, x, y
	KindPlayerOld      Kind = -4  // PLAYER_OLD: cid
	KindInputDiff      Kind = -5  // INPUT_DIFF: cid, 10 diffs
	KindInputNew       Kind = -6  // INPUT_NEW: cid, 10 ints
	KindMessage        Kind = -7  // MESSAGE: cid, size, raw
	KindJoin           Kind = -8  // JOIN: cid
	KindDrop           Kind = -9  // DROP: cid, reason
	KindConsoleCommand Kind = -10 // CONSOLE_COMMAND: cid, flags, cmd, nargs, args
	KindEx             Kind = -11 // EX: uuid, size, raw
)

var kindNames = map[Kind]string{
	KindPlayerDiff: "PLAYER_DIFF", KindFinish: "FINISH", KindTickSkip: "TICK_SKIP",
	KindPlayerNew: "PLAYER_NEW", KindPlayerOld: "PLAYER_OLD", KindInputDiff: "INPUT_DIFF",
	KindInputNew: "INPUT_NEW", KindMessage: "MESSAGE", KindJoin: "JOIN", KindDrop: "DROP",
	KindConsoleCommand: "CONSOLE_COMMAND", KindEx: "EX",
}

// String returns the spec name of k.
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("KIND(%d)", int32(k))
}

// MaxClients is the number of client ids a file may reference (0..63).
const MaxClients = 64

// InputSize is the number of ints of a recorded player input.
const InputSize = 10

// Input is one recorded player input (the 0.7 PlayerInput object).
type Input [InputSize]int32

// Message is one decoded teehistorian message. Fields not used by Kind are
// zero. Data and Args alias the reader's buffer only until the next call to
// Next.
type Message struct {
	Kind   Kind
	Tick   int32 // tick the message belongs to (reader rule, world.md 6.5)
	Offset int64 // byte offset of the message's first byte in the file

	CID   int32 // client id (player, input, message, join, drop, console)
	X, Y  int32 // PLAYER_NEW position, PLAYER_DIFF delta
	DT    int32 // TICK_SKIP
	Input Input // INPUT_NEW value or INPUT_DIFF delta

	Data   []byte   // MESSAGE bytes, EX payload
	Reason string   // DROP reason
	Flags  int32    // CONSOLE_COMMAND flag mask
	Cmd    string   // CONSOLE_COMMAND name
	Args   []string // CONSOLE_COMMAND arguments
	UUID   UUID     // EX uuid
	Ex     ExKind   // EX kind (ExUnknown for unregistered uuids)
}

// ExKind identifies a known extension (EX) message.
type ExKind int

// Known extension messages (world.md 6.1/6.4). ExDirectInput and
// ExInputMissing are twserver's own: they make a recording replayable
// against a World that handles inputs on arrival (firing, weapon switch)
// and only calls the predicted-input hook when an input for the tick exists.
const (
	ExUnknown ExKind = iota
	ExTest
	ExDDNetVerOld
	ExDDNetVer
	ExAuthInit
	ExAuthLogin
	ExAuthLogout
	ExJoinVer6
	ExJoinVer7
	ExPlayerSwap
	ExSaveSuccess
	ExSaveFailure
	ExLoadSuccess
	ExLoadFailure
	ExPlayerTeam
	ExTeamPractice
	ExPlayerReady
	ExPlayerRejoin
	ExAntibot
	ExPlayerName
	ExPlayerFinish
	ExTeamFinish
	ExDirectInput  // twserver: cid, 10 ints = difference to the previous direct input of the connection
	ExInputMissing // twserver: cid — no predicted input for the coming tick
	ExLatency      // twserver: cid, ms — the latency the coming per-second update shows (world.PendingLatency)
	ExSnapSkipped  // twserver: tick — the coming tick is a snapshot tick whose snapshots the loop skips (catching up): no World.PostSnap
	ExServerMsg    // twserver: raw — a game message the server sent to everybody that the world does not make (0.7 form, header included)
	ExPlayerBot    // twserver: cid, skill — the joining connection is a bot (world.PlayerInfo.Bot): no client, PLAYERFLAG_BOT
	ExWorldState   // twserver: raw — a part of the world state (package worldstate) the game goes on from (a live upgrade); a part shorter than WorldStatePart is the last
	ExCheckpoint   // twserver: raw — a part of the world state (package worldstate) as of the coming tick's inputs (record.checkpoint_interval); a part shorter than WorldStatePart is the last
	numExKinds
)

// ExInfo describes one extension message: its registered name, UUID, the
// spec name used by dumps and its payload layout (one letter per field:
// i int, s string, u uuid, r raw rest).
type ExInfo struct {
	Name   string
	Label  string
	Layout string
	UUID   UUID
}

// ExTable lists every known extension, indexed by ExKind. The order of the
// DDNet names is their registration order (used for the header's "uuids").
var ExTable = [numExKinds]ExInfo{
	ExTest:         {Name: "teehistorian-test@ddnet.tw", Label: "TEST"},
	ExDDNetVerOld:  {Name: "teehistorian-ddnetver-old@ddnet.tw", Label: "DDNETVER_OLD", Layout: "ii"},
	ExDDNetVer:     {Name: "teehistorian-ddnetver@ddnet.tw", Label: "DDNETVER", Layout: "iuis"},
	ExAuthInit:     {Name: "teehistorian-auth-init@ddnet.tw", Label: "AUTH_INIT", Layout: "iis"},
	ExAuthLogin:    {Name: "teehistorian-auth-login@ddnet.tw", Label: "AUTH_LOGIN", Layout: "iis"},
	ExAuthLogout:   {Name: "teehistorian-auth-logout@ddnet.tw", Label: "AUTH_LOGOUT", Layout: "i"},
	ExJoinVer6:     {Name: "teehistorian-joinver6@ddnet.tw", Label: "JOINVER6", Layout: "i"},
	ExJoinVer7:     {Name: "teehistorian-joinver7@ddnet.tw", Label: "JOINVER7", Layout: "i"},
	ExPlayerSwap:   {Name: "teehistorian-player-swap@ddnet.tw", Label: "PLAYER_SWAP", Layout: "ii"},
	ExSaveSuccess:  {Name: "teehistorian-save-success@ddnet.tw", Label: "SAVE_SUCCESS", Layout: "ius"},
	ExSaveFailure:  {Name: "teehistorian-save-failure@ddnet.tw", Label: "SAVE_FAILURE", Layout: "i"},
	ExLoadSuccess:  {Name: "teehistorian-load-success@ddnet.tw", Label: "LOAD_SUCCESS", Layout: "ius"},
	ExLoadFailure:  {Name: "teehistorian-load-failure@ddnet.tw", Label: "LOAD_FAILURE", Layout: "i"},
	ExPlayerTeam:   {Name: "teehistorian-player-team@ddnet.tw", Label: "PLAYER_TEAM", Layout: "ii"},
	ExTeamPractice: {Name: "teehistorian-team-practice@ddnet.tw", Label: "TEAM_PRACTICE", Layout: "ii"},
	ExPlayerReady:  {Name: "teehistorian-player-ready@ddnet.tw", Label: "PLAYER_READY", Layout: "i"},
	ExPlayerRejoin: {Name: "teehistorian-rejoinver6@ddnet.org", Label: "PLAYER_REJOIN", Layout: "i"},
	ExAntibot:      {Name: "teehistorian-antibot@ddnet.org", Label: "ANTIBOT", Layout: "r"},
	ExPlayerName:   {Name: "teehistorian-player-name@ddnet.org", Label: "PLAYER_NAME", Layout: "is"},
	ExPlayerFinish: {Name: "teehistorian-player-finish@ddnet.org", Label: "PLAYER_FINISH", Layout: "ii"},
	ExTeamFinish:   {Name: "teehistorian-team-finish@ddnet.org", Label: "TEAM_FINISH", Layout: "ii"},
	ExDirectInput:  {Name: "teehistorian-direct-input@twserver", Label: "DIRECT_INPUT", Layout: "iiiiiiiiiii"},
	ExInputMissing: {Name: "teehistorian-input-missing@twserver", Label: "INPUT_MISSING", Layout: "i"},
	ExLatency:      {Name: "teehistorian-latency@twserver", Label: "LATENCY", Layout: "ii"},
	ExSnapSkipped:  {Name: "teehistorian-snap-skipped@twserver", Label: "SNAP_SKIPPED", Layout: "i"},
	ExServerMsg:    {Name: "teehistorian-server-message@twserver", Label: "SERVER_MESSAGE", Layout: "r"},
	ExPlayerBot:    {Name: "teehistorian-player-bot@twserver", Label: "PLAYER_BOT", Layout: "ii"},
	ExWorldState:   {Name: "teehistorian-world-state@twserver", Label: "WORLD_STATE", Layout: "r"},
	ExCheckpoint:   {Name: "teehistorian-checkpoint@twserver", Label: "CHECKPOINT", Layout: "r"},
}

// WorldStatePart is the size of every WORLD_STATE (and CHECKPOINT) record
// of a state but the last (which is shorter, possibly empty): within the reader's MaxDataSize.
const WorldStatePart = 1 << 15

var exByUUID = map[UUID]ExKind{}

func init() {
	for k := ExKind(1); k < numExKinds; k++ {
		ExTable[k].UUID = NameUUID(ExTable[k].Name)
		exByUUID[ExTable[k].UUID] = k
	}
}

// ExByUUID returns the kind of an extension UUID (ExUnknown if unknown).
func ExByUUID(u UUID) ExKind { return exByUUID[u] }

// String returns the label of k.
func (k ExKind) String() string {
	if k > ExUnknown && k < numExKinds {
		return ExTable[k].Label
	}
	return "EX_UNKNOWN"
}

// RecordedPositions are the characters' positions as a file records them
// (PLAYER_NEW, PLAYER_DIFF, PLAYER_OLD), as of the last message applied:
// the one reader of them (the replay compares them with its world, the
// viewer's rough pass shows them).
type RecordedPositions struct {
	alive [MaxClients]bool
	x, y  [MaxClients]int32
}

// Apply applies m when it is a position record and reports whether it was.
func (p *RecordedPositions) Apply(m *Message) bool {
	cid := int(m.CID)
	if cid < 0 || cid >= MaxClients {
		return false
	}
	switch m.Kind {
	case KindPlayerNew:
		p.alive[cid], p.x[cid], p.y[cid] = true, m.X, m.Y
	case KindPlayerDiff:
		p.x[cid] += m.X
		p.y[cid] += m.Y
	case KindPlayerOld:
		p.alive[cid] = false
	default:
		return false
	}
	return true
}

// Get returns client cid's recorded position; false when it has no
// character.
func (p *RecordedPositions) Get(cid int) (x, y int32, ok bool) {
	if cid < 0 || cid >= MaxClients || !p.alive[cid] {
		return 0, 0, false
	}
	return p.x[cid], p.y[cid], true
}

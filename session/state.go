package session

// State is the engine-side state of a slot (net.md A3.2).
type State uint8

// The states of a slot, in the order a client goes through them.
const (
	Empty      State = iota // free slot
	Auth                    // connection accepted, waiting for INFO
	Connecting              // INFO accepted, map change sent
	Ready                   // READY received, CON_READY sent
	Ingame                  // ENTERGAME processed, gets snapshots
)

// NumStates is the number of states (for tables indexed by State).
const NumStates = int(Ingame) + 1

var stateNames = [NumStates]string{"empty", "auth", "connecting", "ready", "ingame"}

// String is the state's name in logs.
func (st State) String() string {
	if int(st) < len(stateNames) {
		return stateNames[st]
	}
	return "invalid"
}

// SnapRate is how often a client in game gets snapshots (net.md A4.3): the
// engine's SNAPRATE_INIT, SNAPRATE_FULL and SNAPRATE_RECOVER.
type SnapRate uint8

// The snapshot rates.
const (
	SnapRateInit    SnapRate = iota // entered, nothing acknowledged yet: every 10th tick
	SnapRateFull                    // acknowledging: every snapshot tick
	SnapRateRecover                 // its acknowledged snapshot is unknown: full snapshots every 50th tick
)

// Due reports whether a client at rate r gets a snapshot on tick (a
// snapshot tick of the game's snapshot rate).
func (r SnapRate) Due(tick int32) bool {
	switch r {
	case SnapRateInit:
		return tick%10 == 0
	case SnapRateRecover:
		return tick%50 == 0
	}
	return true
}

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

package vote

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"twserver/config"
	"twserver/edge"
	"twserver/teehist/replay"
)

// Request is a call of a vote: a player's Cl_CallVote or the console's
// force_vote.
type Request struct {
	// Caller is the calling client's id, -1 for the server console.
	Caller int
	// Type is "option", "kick" or "spectate" (any case).
	Type string
	// Value is the option's description or the target's client id.
	Value string
	// Reason is the caller's reason (cut by Reason).
	Reason string
	// Force carries the vote out at once instead of starting it.
	Force bool
	// Console says the console called it (force_vote): refusals go to the
	// console, not to the caller's chat.
	Console bool
}

// Refusal says why a call started nothing (the zero value: it was not
// refused).
type Refusal struct {
	// Text is the reference's text of the refusal.
	Text string
	// Chat says a player's call is told Text in chat; without it a
	// player's call is refused silently, as the reference (the client
	// offers only what Sv_ServerSettings allows). The console always sees
	// Text.
	Chat bool
}

// Action is the console command a kick or spectate vote runs when it
// passes or is forced: a command of the console's table by name with its
// arguments, run without a line to format and parse again (console.Exec).
// An option's vote has none (its command is the option's console line).
type Action struct {
	// Name is the command's name ("kick", "ban" or "set_team").
	Name string
	// Args are its arguments as the console would have parsed them.
	Args []string
}

// Call checks a vote call against the reference's rules (voting.kick,
// voting.kick_min, voting.spectate, the option list, the target) over the
// loop's slots and returns the vote it starts or forces, with the console
// line announcing it, or why it was refused. A kick or spectate vote
// spares rcon-authenticated targets, bans for voting.kick_ban_time minutes
// when that is not 0, and blocks a player moved to the spectators from
// rejoining for voting.spectate_rejoin_delay minutes.
func Call(r Request, slots Slots, opts []config.VoteOption, rules config.VotingConfig) (State, string, Refusal) {
	v := State{Active: true, Caller: r.Caller, Target: -1, Reason: Reason(r.Reason)}
	target := ""
	switch strings.ToLower(r.Type) {
	case "option":
		o := Options{List: opts}
		i := o.Find(r.Value)
		if i < 0 {
			return State{}, "", Refusal{Text: "'" + r.Value + "' isn't an option on this server", Chat: true}
		}
		v.Kind, v.Desc, v.Command = StartOp, opts[i].Description, opts[i].Command
		target = opts[i].Description
	case "kick":
		if !rules.Kick {
			return State{}, "", Refusal{Text: "kick votes are off (voting.kick)"}
		}
		if n := realPlayers(slots); n < rules.KickMin {
			return State{}, "", Refusal{Text: fmt.Sprintf("kick votes need %d players, there are %d (voting.kick_min)", rules.KickMin, n)}
		}
		id, ref := voteTarget(r.Caller, slots, r.Value)
		if ref.Text != "" {
			return State{}, "", ref
		}
		t := slots.Slot(id)
		if t.Authed {
			return State{}, "", Refusal{Text: "rcon-authenticated players cannot be kicked by vote"}
		}
		if bt := rules.KickBanTime; bt > 0 {
			v.Action = Action{Name: "ban", Args: []string{edge.RefAddr(netip.AddrPortFrom(t.Addr, 0), false), strconv.Itoa(bt), "Banned by vote"}}
		} else {
			v.Action = Action{Name: "kick", Args: []string{strconv.Itoa(id), "Kicked by vote"}}
		}
		v.Kind, v.Target = StartKick, id
	case "spectate":
		if !rules.Spectate {
			return State{}, "", Refusal{Text: "spectate votes are off (voting.spectate)"}
		}
		id, ref := voteTarget(r.Caller, slots, r.Value)
		if ref.Text != "" {
			return State{}, "", ref
		}
		if slots.Slot(id).Spectator {
			return State{}, "", Refusal{Text: fmt.Sprintf("client %d is a spectator already", id)}
		}
		v.Action = Action{Name: "set_team", Args: []string{strconv.Itoa(id), "-1", strconv.Itoa(rules.SpectateRejoinDelay)}}
		v.Kind, v.Target = StartSpec, id
	default:
		return State{}, "", Refusal{Text: "vote type must be option, kick or spectate"}
	}
	if v.Action.Name != "" {
		v.Command = v.Action.Name + " " + strings.Join(v.Action.Args, " ")
	}
	if v.Target >= 0 {
		name := slots.Slot(v.Target).Name
		v.Desc = fmt.Sprintf("%2d: %s", v.Target, name)
		target = fmt.Sprintf("%d:%s", v.Target, name)
	}
	callerName := "console"
	if r.Caller >= 0 {
		callerName = slots.Slot(r.Caller).Name
	}
	force01 := 0
	if r.Force {
		force01 = 1
	}
	line := fmt.Sprintf("'%d:%s' voted %s '%s' reason='%s' cmd='%s' force=%d", r.Caller, callerName, r.Type, target, v.Reason, v.Command, force01)
	return v, line, Refusal{}
}

// voteTarget reads the client id of a kick or spectate vote: an in-game
// client other than the caller.
func voteTarget(caller int, slots Slots, value string) (int, Refusal) {
	id := replay.IntArg(value)
	if id < 0 || id >= slots.Len() || !slots.Slot(id).Ingame {
		return 0, Refusal{Text: "Invalid client id to vote on", Chat: true}
	}
	if id == caller {
		return 0, Refusal{Text: "You can't vote on yourself", Chat: true}
	}
	return id, Refusal{}
}

// realPlayers counts the in-game clients that are not spectators (the
// reference's GetRealPlayerNum, compared with voting.kick_min).
func realPlayers(slots Slots) int {
	n := 0
	for i := range slots.Len() {
		if b := slots.Slot(i); b.Ingame && !b.Spectator {
			n++
		}
	}
	return n
}

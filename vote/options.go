package vote

import (
	"fmt"
	"slices"
	"strings"

	"twserver/config"
	"twserver/gamemsg"
)

// Options is the vote option list the clients see; the loop keeps it in
// its configuration (config.Config.Votes).
type Options struct {
	// List is the options in their order.
	List []config.VoteOption
}

// Find returns the index of the option with description desc
// (case-insensitive), or -1.
func (o *Options) Find(desc string) int {
	for i, v := range o.List {
		if strings.EqualFold(v.Description, desc) {
			return i
		}
	}
	return -1
}

// Add is the reference's add_vote: valid reports whether command is a
// valid console line. It returns the console's text and whether the option
// was added (then the clients get Sv_VoteOptionAdd).
func (o *Options) Add(desc, command string, valid func(string) bool) (string, bool) {
	if len(o.List) >= config.MaxVoteOptions {
		return "maximum number of vote options reached", false
	}
	if !valid(command) || len(command) > config.MaxVoteCmdLen {
		return fmt.Sprintf("skipped invalid command '%s'", command), false
	}
	desc = strings.TrimLeft(desc, " ")
	if desc == "" || len(desc) > config.MaxVoteDescLen {
		return fmt.Sprintf("skipped invalid option '%s'", desc), false
	}
	if o.Find(desc) >= 0 {
		return fmt.Sprintf("option '%s' already exists", desc), false
	}
	// a new slice: the configuration's own may be shared with the caller of New
	o.List = append(slices.Clip(o.List), config.VoteOption{Description: desc, Command: command})
	return fmt.Sprintf("added option '%s' '%s'", desc, command), true
}

// Remove is the reference's remove_vote: it returns the console's text and
// the removed option (ok false when there was none).
func (o *Options) Remove(desc string) (text string, removed config.VoteOption, ok bool) {
	i := o.Find(desc)
	if i < 0 {
		return fmt.Sprintf("option '%s' does not exist", desc), removed, false
	}
	removed = o.List[i]
	o.List = slices.Concat(o.List[:i], o.List[i+1:])
	return fmt.Sprintf("removed option '%s' '%s'", removed.Description, removed.Command), removed, true
}

// Batches calls send with the Sv_VoteOptionListAdd messages that carry
// the list, MaxOptionAdd options each.
func (o *Options) Batches(send func(*gamemsg.SvVoteOptionListAdd)) {
	opts := o.List
	for len(opts) > 0 {
		n := min(len(opts), MaxOptionAdd)
		var m gamemsg.SvVoteOptionListAdd
		m.Num = int32(n)
		for i := range n {
			m.Descriptions[i] = opts[i].Description
		}
		send(&m)
		opts = opts[n:]
	}
}

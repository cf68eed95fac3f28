package edge

import (
	"fmt"
	"sort"
	"strings"

	"twserver/netproto"
)

// Counters returns the counter values by name (the console's stats line,
// the tests' reports).
func (st *Stats) Counters() map[string]uint64 {
	return map[string]uint64{
		"received":         st.Received.Load(),
		"malformed":        st.Malformed.Load(),
		"bad_token":        st.BadToken.Load(),
		"queue_full":       st.QueueFull.Load(),
		"connless_dropped": st.ConnlessDropped.Load(),
		"token_replies":    st.TokenReplies.Load(),
		"info_replies":     st.InfoReplies.Load(),
		"bad_messages":     st.BadMessages.Load(),
		"flood":            st.Flood.Load(),
		"retokened":        st.Retokened.Load(),
	}
}

// CountersLine formats the counters as "name=value" pairs in name order
// (the console's stats).
func (st *Stats) CountersLine() string {
	cs := st.Counters()
	keys := make([]string, 0, len(cs))
	for k := range cs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", k, cs[k])
	}
	return b.String()
}

// ReasonDialectOff is the CLOSE reason for a client of a dialect the
// server does not accept (server.accept_07, server.accept_06), worded as
// DDNet's refusal of 0.7 clients.
func ReasonDialectOff(d netproto.Dialect) string {
	if d.Is6() {
		return "0.6 connections are not accepted at this time"
	}
	return "0.7 connections are not accepted at this time"
}

package vote

import (
	"net/netip"
	"reflect"
	"testing"

	"twserver/config"
)

func TestCall(t *testing.T) {
	a := func(s string) netip.Addr { return netip.MustParseAddr(s) }
	game := slots{
		{Ingame: true, Addr: a("10.0.0.1"), Name: "alice"},
		{Ingame: true, Addr: a("10.0.0.2"), Name: "bob"},
		{Ingame: true, Addr: a("10.0.0.3"), Name: "carol", Authed: true},
		{Ingame: true, Spectator: true, Addr: a("10.0.0.4"), Name: "dave"},
		{Ingame: false, Addr: a("10.0.0.5"), Name: "eve"},
	}
	opts := []config.VoteOption{{Description: "Restart", Command: "restart 10"}}
	rules := config.VotingConfig{Kick: true, KickBanTime: 5, Spectate: true, SpectateRejoinDelay: 3}
	noBan := rules
	noBan.KickBanTime = 0
	for _, tt := range []struct {
		name   string
		req    Request
		rules  config.VotingConfig
		want   State
		line   string
		refuse Refusal
	}{
		{name: "option", req: Request{Caller: 0, Type: "Option", Value: "restart", Reason: ""}, rules: rules,
			want: State{Active: true, Kind: StartOp, Caller: 0, Target: -1, Desc: "Restart", Command: "restart 10", Reason: NoReason},
			line: "'0:alice' voted Option 'Restart' reason='No reason given' cmd='restart 10' force=0"},
		{name: "unknown option", req: Request{Caller: 0, Type: "option", Value: "nope"}, rules: rules,
			refuse: Refusal{Text: "'nope' isn't an option on this server", Chat: true}},
		{name: "kick bans", req: Request{Caller: -1, Type: "kick", Value: "1", Reason: "griefing for a long time", Force: true, Console: true}, rules: rules,
			want: State{Active: true, Kind: StartKick, Caller: -1, Target: 1, Desc: " 1: bob", Reason: "griefing for a ",
				Command: "ban 10.0.0.2 5 Banned by vote", Action: Action{Name: "ban", Args: []string{"10.0.0.2", "5", "Banned by vote"}}},
			line: "'-1:console' voted kick '1:bob' reason='griefing for a ' cmd='ban 10.0.0.2 5 Banned by vote' force=1"},
		{name: "kick only", req: Request{Caller: 0, Type: "kick", Value: "1"}, rules: noBan,
			want: State{Active: true, Kind: StartKick, Caller: 0, Target: 1, Desc: " 1: bob", Reason: NoReason,
				Command: "kick 1 Kicked by vote", Action: Action{Name: "kick", Args: []string{"1", "Kicked by vote"}}},
			line: "'0:alice' voted kick '1:bob' reason='No reason given' cmd='kick 1 Kicked by vote' force=0"},
		{name: "kick off", req: Request{Caller: 0, Type: "kick", Value: "1"}, rules: config.VotingConfig{},
			refuse: Refusal{Text: "kick votes are off (voting.kick)"}},
		{name: "kick min", req: Request{Caller: 0, Type: "kick", Value: "1"}, rules: config.VotingConfig{Kick: true, KickMin: 4},
			refuse: Refusal{Text: "kick votes need 4 players, there are 3 (voting.kick_min)"}},
		{name: "kick authed", req: Request{Caller: 0, Type: "kick", Value: "2"}, rules: rules,
			refuse: Refusal{Text: "rcon-authenticated players cannot be kicked by vote"}},
		{name: "kick self", req: Request{Caller: 1, Type: "kick", Value: "1"}, rules: rules,
			refuse: Refusal{Text: "You can't vote on yourself", Chat: true}},
		{name: "kick not in game", req: Request{Caller: 0, Type: "kick", Value: "4"}, rules: rules,
			refuse: Refusal{Text: "Invalid client id to vote on", Chat: true}},
		{name: "kick out of range", req: Request{Caller: 0, Type: "kick", Value: "64"}, rules: rules,
			refuse: Refusal{Text: "Invalid client id to vote on", Chat: true}},
		{name: "spectate", req: Request{Caller: 0, Type: "spectate", Value: "1"}, rules: rules,
			want: State{Active: true, Kind: StartSpec, Caller: 0, Target: 1, Desc: " 1: bob", Reason: NoReason,
				Command: "set_team 1 -1 3", Action: Action{Name: "set_team", Args: []string{"1", "-1", "3"}}},
			line: "'0:alice' voted spectate '1:bob' reason='No reason given' cmd='set_team 1 -1 3' force=0"},
		{name: "spectate a spectator", req: Request{Caller: 0, Type: "spectate", Value: "3"}, rules: rules,
			refuse: Refusal{Text: "client 3 is a spectator already"}},
		{name: "spectate off", req: Request{Caller: 0, Type: "spectate", Value: "1"}, rules: config.VotingConfig{Kick: true},
			refuse: Refusal{Text: "spectate votes are off (voting.spectate)"}},
		{name: "bad type", req: Request{Caller: 0, Type: "map"}, rules: rules,
			refuse: Refusal{Text: "vote type must be option, kick or spectate"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, line, ref := Call(tt.req, game, opts, tt.rules)
			if ref != tt.refuse {
				t.Fatalf("refusal %+v, want %+v", ref, tt.refuse)
			}
			if line != tt.line {
				t.Errorf("line %q\nwant %q", line, tt.line)
			}
			if !reflect.DeepEqual(v, tt.want) {
				t.Errorf("state %+v\nwant %+v", v, tt.want)
			}
		})
	}
}

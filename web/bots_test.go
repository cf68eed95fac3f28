package web

import (
	"encoding/json"
	"strings"
	"testing"

	"twserver/live"
)

// TestAPIMarksBots: /api/games says "bot": true for a bot and false for a
// connected client.
func TestAPIMarksBots(t *testing.T) {
	f := &live.Frame{Players: []live.Player{
		{ID: 0, Name: "alice", Client: live.Client07, IsPlayer: true},
		{ID: 15, Name: "Ada", Client: live.ClientBot, IsPlayer: true, Bot: true},
	}}
	b, err := json.Marshal(gameOf(8303, f))
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	if !strings.Contains(js, `"name":"Ada","clan":"","country":0,"score":0,"is_player":true,"team":0,"ping":0,"client":"bot","bot":true`) ||
		!strings.Contains(js, `"client":"0.7","bot":false`) {
		t.Errorf("the API does not mark the bot: %s", js)
	}
}

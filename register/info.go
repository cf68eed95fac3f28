package register

import (
	"encoding/hex"
	"encoding/json"

	"twserver/observe"
)

// jsonInfo is the wire form (key names as DDNet's UpdateRegisterServerInfo).
type jsonInfo struct {
	MaxClients      int          `json:"max_clients"`
	MaxPlayers      int          `json:"max_players"`
	Passworded      bool         `json:"passworded"`
	GameType        string       `json:"game_type"`
	Name            string       `json:"name"`
	Map             jsonMap      `json:"map"`
	Version         string       `json:"version"`
	ClientScoreKind string       `json:"client_score_kind"`
	Clients         []jsonClient `json:"clients"`
}

type jsonMap struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Size   int    `json:"size"`
}

type jsonClient struct {
	Name     string `json:"name"`
	Clan     string `json:"clan"`
	Country  int    `json:"country"`
	Score    int    `json:"score"`
	IsPlayer bool   `json:"is_player"`
}

// MaxInfoJSON bounds the encoded info body (DDNet keeps it in 16 KiB);
// clients past the bound are left out.
const MaxInfoJSON = 16 << 10

// InfoJSON encodes the server info as the register body (DDNet's JSON
// server info, ops-facts.md 1.2 and net.md B6.6). A vanilla-style server
// counts points, so client_score_kind is "points".
func InfoJSON(in *observe.Info) []byte {
	j := jsonInfo{
		MaxClients: in.MaxClients, MaxPlayers: in.MaxPlayers, Passworded: in.Passworded,
		GameType: in.GameType, Name: in.Name, Version: in.Version, ClientScoreKind: "points",
		Map:     jsonMap{Name: in.MapName, SHA256: hex.EncodeToString(in.MapSHA256[:]), Size: in.MapSize},
		Clients: make([]jsonClient, 0, len(in.Clients)),
	}
	for _, c := range in.Clients {
		j.Clients = append(j.Clients, jsonClient(c))
	}
	for {
		b, err := json.Marshal(&j)
		if err != nil { // only plain strings, ints and bools: cannot fail
			panic("register: info JSON: " + err.Error())
		}
		if len(b) <= MaxInfoJSON || len(j.Clients) == 0 {
			return b
		}
		j.Clients = j.Clients[:len(j.Clients)/2]
	}
}

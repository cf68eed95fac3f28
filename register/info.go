package register

import (
	"encoding/hex"
	"encoding/json"
)

// Info is the server description sent to the master in the register body
// (DDNet's JSON server info, ops-facts.md 1.2 and net.md B6.6). The game loop
// builds a fresh Info on every change and never modifies it afterwards.
type Info struct {
	Name       string
	GameType   string
	Version    string
	MapName    string
	MapSHA256  [32]byte
	MapSize    int
	MaxClients int
	MaxPlayers int
	Passworded bool
	Clients    []Client
}

// Client is one connected client in Info.
type Client struct {
	Name     string
	Clan     string
	Country  int
	Score    int
	IsPlayer bool // in the game and not a spectator
}

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

// JSON encodes the info as the register body. A vanilla-style server counts
// points, so client_score_kind is "points".
func (in *Info) JSON() []byte {
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

package dialect6

// Client id mapping for vanilla 0.6 clients. They know client ids 0..15
// only (MAX_CLIENTS 16) and index their player tables with snapshot item
// ids unchecked, so ids 16..63 must never reach them. A vanilla Peer
// carries a map from the game's ids onto its 16: its own id, then every
// other player in id order while slots are free. A player keeps its slot
// while in the game; a slot frees when its player leaves. Players without a
// slot are invisible to that client (their chat arrives as "name: text"
// server lines). DDNet peers see every id unchanged.

// idMap maps game client ids to the ids one vanilla client sees.
type idMap struct {
	on  bool
	to6 [MaxClients]int8        // game id → vanilla id, -1: not shown
	to7 [MaxClientsVanilla]int8 // vanilla id → game id, -1: free
}

// reset empties the map and, when on, gives the peer's own id its slot
// (the same number when below 16).
func (m *idMap) reset(on bool, self int) {
	m.on = on
	for i := range m.to6 {
		m.to6[i] = -1
	}
	for i := range m.to7 {
		m.to7[i] = -1
	}
	if on && self >= 0 && self < MaxClients {
		m.assign(self, self%MaxClientsVanilla)
	}
}

func (m *idMap) assign(real, slot int) {
	m.to6[real] = int8(slot)
	m.to7[slot] = int8(real)
}

// update frees the slots of players who left and gives free slots to
// players without one, lowest game id first.
func (m *idMap) update(self int, infos *Infos) {
	if !m.on {
		return
	}
	for s, r := range m.to7 {
		if r >= 0 && int(r) != self && !infos.players[r].active {
			m.to6[r], m.to7[s] = -1, -1
		}
	}
	free := 0
	for real := range MaxClients {
		if m.to6[real] >= 0 || !infos.players[real].active {
			continue
		}
		for free < MaxClientsVanilla && m.to7[free] >= 0 {
			free++
		}
		if free == MaxClientsVanilla {
			return
		}
		m.assign(real, free)
	}
}

// id6 returns the id the peer knows game client id real by, and whether it
// knows it at all.
func (m *idMap) id6(real int32) (int32, bool) {
	if real < 0 || real >= MaxClients {
		return -1, false
	}
	if !m.on {
		return real, true
	}
	v := m.to6[real]
	return int32(v), v >= 0
}

// id7 returns the game client id behind the peer's id v.
func (m *idMap) id7(v int32) (int32, bool) {
	if !m.on {
		return v, v >= 0 && v < MaxClients
	}
	if v < 0 || v >= MaxClientsVanilla || m.to7[v] < 0 {
		return -1, false
	}
	return int32(m.to7[v]), true
}

// Visible returns the id client real has for this peer (real itself for
// DDNet peers) and whether the peer sees it at all.
func (p *Peer) Visible(real int) (int, bool) {
	v, ok := p.ids.id6(int32(real))
	return int(v), ok
}

// GameID returns the game's client id behind an id the peer uses (the
// inverse of Visible).
func (p *Peer) GameID(id int) (int, bool) {
	v, ok := p.ids.id7(int32(id))
	return int(v), ok
}

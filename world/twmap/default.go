package twmap

import (
	_ "embed" // for the default map
	"sync"
)

//go:generate go run ./gen -o default.map

// defaultMapData is the committed output of GenerateDefault.
//
//go:embed default.map
var defaultMapData []byte

var defaultMap = sync.OnceValues(func() (*Map, error) {
	return Load(DefaultName, defaultMapData)
})

// Default returns the embedded default map (DefaultName, 60x40 tiles). The
// returned Map is shared and must not be modified. It panics only if the
// embedded file is broken, which the package tests rule out.
func Default() *Map {
	m, err := defaultMap()
	if err != nil {
		panic("twmap: embedded default map: " + err.Error())
	}
	return m
}

// DefaultData returns a copy of the embedded default map file.
func DefaultData() []byte {
	return append([]byte(nil), defaultMapData...)
}

package httpserve

import "net/netip"

// AddrKey is the unit in which a client is counted: its IPv4 address, or
// the /64 network of its IPv6 address (one subscriber's allocation, so
// that rotating through the addresses of one network does not multiply a
// client's share). An IPv4-mapped IPv6 address counts as the IPv4
// address; invalid addresses share one key (the zero Prefix).
func AddrKey(a netip.Addr) netip.Prefix {
	a = a.Unmap()
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil { // an invalid address: one key for all of them
		return netip.Prefix{}
	}
	return p
}

package register

import "fmt"

// Protocol is one registration: a game protocol over one IP family. The
// master keeps one entry per server (by Secret) with one address per
// registered protocol (ops-facts.md 1.2).
type Protocol uint8

// The protocols in DDNet's order (register.cpp PROTOCOL_*).
const (
	TW06IPv6 Protocol = iota
	TW06IPv4
	TW07IPv6
	TW07IPv4
	// NumProtocols is the number of protocols.
	NumProtocols
)

// String returns the protocol as the master knows it ("tw0.7/ipv4"), the
// form used in Challenge-Secret and in the challenge packet.
func (p Protocol) String() string {
	switch p {
	case TW06IPv6:
		return "tw0.6/ipv6"
	case TW06IPv4:
		return "tw0.6/ipv4"
	case TW07IPv6:
		return "tw0.7/ipv6"
	case TW07IPv4:
		return "tw0.7/ipv4"
	}
	return fmt.Sprintf("protocol(%d)", uint8(p))
}

// ParseProtocol parses the String form.
func ParseProtocol(s string) (Protocol, bool) {
	for p := range NumProtocols {
		if p.String() == s {
			return p, true
		}
	}
	return 0, false
}

// Seven reports whether p announces the 0.7 protocol (these carry the
// Connless-Token and get the 0.7 form of the challenge packet).
func (p Protocol) Seven() bool { return p == TW07IPv4 || p == TW07IPv6 }

// IPv6 reports whether p registers over IPv6.
func (p Protocol) IPv6() bool { return p == TW06IPv6 || p == TW07IPv6 }

// scheme is the address scheme announced in the Address header.
func (p Protocol) scheme() string {
	if p.Seven() {
		return "tw-0.7+udp://"
	}
	return "tw-0.6+udp://"
}

// Select lists the protocols to register: tw0.7 always, tw0.6 when the
// server serves 0.6 clients, each over the given IP families.
func Select(tw06, ipv4, ipv6 bool) []Protocol {
	var ps []Protocol
	for p := range NumProtocols {
		if (!p.Seven() && !tw06) || (p.IPv6() && !ipv6) || (!p.IPv6() && !ipv4) {
			continue
		}
		ps = append(ps, p)
	}
	return ps
}

// Status is the registration state of one protocol, from the master's
// latest answer.
type Status int32

// Registration states.
const (
	// StatusNone: nothing sent yet (or deleted on shutdown).
	StatusNone Status = iota
	// StatusRegistering: a first request is under way.
	StatusRegistering
	// StatusOK: the master listed the server ("success").
	StatusOK
	// StatusNeedChallenge: the master waits for the answer to its UDP
	// challenge; twice in a row means the game port is not reachable.
	StatusNeedChallenge
	// StatusNeedInfo: the master asked for the info body.
	StatusNeedInfo
	// StatusError: the master answered an error, no JSON, or nothing.
	StatusError
)

// String names the status like the master's JSON ("success", ...).
func (s Status) String() string {
	switch s {
	case StatusNone:
		return "none"
	case StatusRegistering:
		return "registering"
	case StatusOK:
		return "success"
	case StatusNeedChallenge:
		return "need_challenge"
	case StatusNeedInfo:
		return "need_info"
	case StatusError:
		return "error"
	}
	return fmt.Sprintf("status(%d)", int32(s))
}

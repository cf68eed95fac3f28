package web

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Behind a reverse proxy (Options.TrustedProxies, [web] trusted_proxies)
// every TCP peer is the proxy. A request whose peer is inside a trusted
// network is taken as the proxy says: the client address from
// X-Forwarded-For (the right-most address that is not itself a trusted
// proxy: what a client writes to the left of it is not believed), the
// scheme from X-Forwarded-Proto and the host from X-Forwarded-Host (the
// last value of each). From any other peer these headers are ignored.

// MaxForwardedHops bounds the X-Forwarded-For addresses read, from the
// right; a chain of more trusted proxies ends at the last one read.
const MaxForwardedHops = 16

// MaxForwardedHost bounds an X-Forwarded-Host value.
const MaxForwardedHost = 255

// peerAddr is the request's TCP peer address.
func peerAddr(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, _ := netip.ParseAddr(host)
	return ip.Unmap()
}

// trusted reports whether a is inside a trusted proxy's network.
func (h *Handler) trusted(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.Unmap().WithZone("")
	for _, p := range h.opt.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address of the client that sent r: the TCP peer, or,
// when the peer is a trusted proxy, the right-most address of
// X-Forwarded-For outside the trusted networks (the left-most read if all
// are trusted; the last trusted one when the next is not an address).
func (h *Handler) clientAddr(r *http.Request) netip.Addr {
	addr := peerAddr(r)
	if !h.trusted(addr) {
		return addr
	}
	vals := r.Header.Values("X-Forwarded-For")
	hops := 0
	for i := len(vals) - 1; i >= 0; i-- {
		v := vals[i]
		for v != "" {
			var part string
			if k := strings.LastIndexByte(v, ','); k >= 0 {
				part, v = v[k+1:], v[:k]
			} else {
				part, v = v, ""
			}
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if hops++; hops > MaxForwardedHops {
				return addr
			}
			a, ok := forwardedAddr(part)
			if !ok {
				return addr
			}
			if !h.trusted(a) {
				return a
			}
			addr = a
		}
	}
	return addr
}

// forwardedAddr reads one X-Forwarded-For entry: an IP address, or one
// with a port ("1.2.3.4:5", "[::1]:5").
func forwardedAddr(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

// origin is the scheme ("http" or "https") and host the client asked for:
// r's own, or from a trusted proxy its X-Forwarded-Proto and
// X-Forwarded-Host when they are valid.
func (h *Handler) origin(r *http.Request) (scheme, host string) {
	scheme, host = "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if !h.trusted(peerAddr(r)) {
		return scheme, host
	}
	switch p := strings.ToLower(lastValue(r.Header.Values("X-Forwarded-Proto"))); p {
	case "http", "https":
		scheme = p
	}
	if fh := lastValue(r.Header.Values("X-Forwarded-Host")); validHost(fh) {
		host = fh
	}
	return scheme, host
}

// lastValue is the last comma-separated value of a header's lines, trimmed.
func lastValue(vals []string) string {
	if len(vals) == 0 {
		return ""
	}
	v := vals[len(vals)-1]
	if k := strings.LastIndexByte(v, ','); k >= 0 {
		v = v[k+1:]
	}
	return strings.TrimSpace(v)
}

// validHost reports whether s can be a Host: a name or address with an
// optional port, no spaces, slashes or other punctuation.
func validHost(s string) bool {
	if s == "" || len(s) > MaxForwardedHost {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == ':' || c == '[' || c == ']' || c == '_') {
			return false
		}
	}
	return true
}

// sameOrigin refuses a browser's cross-site request: a Sec-Fetch-Site
// other than same-origin or none, or an Origin other than the scheme and
// host the client asked for (origin: from a trusted proxy, exactly its
// forwarded scheme and host; from any other peer r.Host with either
// scheme, as a TLS proxy that keeps Host and is not named sends it);
// requests without either header are not from a browser page.
func (h *Handler) sameOrigin(r *http.Request) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	scheme, host := h.origin(r)
	if h.trusted(peerAddr(r)) {
		return strings.EqualFold(o, scheme+"://"+host)
	}
	return strings.EqualFold(o, "http://"+host) || strings.EqualFold(o, "https://"+host)
}

package web

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// The admin page answers only under the names it is known by. A page of
// another site whose DNS name is made to point at this server's address
// (DNS rebinding) is same-origin with the server as far as the browser
// can tell: without this check its script could send wrong tokens from
// the browser's address, which bans that address (the admin's own) for
// LoginBanTime, again and again. Such a request names the other site in
// its Host, so the admin page refuses a host name that is neither an IP
// address, localhost nor one of Options.AdminHosts, before any token is
// counted.

// nameOK reports whether host (a Host header's name, as bareHost returns
// it) is a name the admin page is served under: an IP address, localhost
// (or a name under .localhost, which resolves only to this machine), or
// one of names (compared without case and trailing dot).
func nameOK(host string, names []string) bool {
	if host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	host = strings.ToLower(host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, n := range names {
		if strings.EqualFold(strings.TrimSuffix(n, "."), host) {
			return true
		}
	}
	return false
}

// bareHost is the name of host (a Host header's value) without its
// port, brackets and trailing dot.
func bareHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.Trim(host, "[]"), ".")
}

// adminHostOK reports whether r asked for a host the admin page is served
// under (the forwarded host from a trusted proxy, origin), and that
// host's name (bareHost).
func (h *Handler) adminHostOK(r *http.Request) (ok bool, name string) {
	_, host := h.origin(r)
	name = bareHost(host)
	return nameOK(name, h.opt.AdminHosts), name
}

// adminHost refuses the admin requests asked for under a host name the
// page is not served under (403, naming the setting that adds it), before
// next sees them.
func (h *Handler) adminHost(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.admin != nil {
			if ok, host := h.adminHostOK(r); !ok {
				writeError(w, http.StatusForbidden, "the admin page is not served under the name "+
					strconv.Quote(host)+": add it to web.admin_hosts in the server's configuration")
				return
			}
		}
		next(w, r)
	}
}

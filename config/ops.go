package config

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// Bounds of the operations settings.
const (
	// MaxUDPMasters bounds the legacy 0.7 masters of register.udp_masters.
	MaxUDPMasters = 8
	// MaxEconAuthTimeout is the largest econ.auth_timeout in seconds.
	MaxEconAuthTimeout = 3600
	// MaxEconBanTime is the largest econ.ban_time in seconds.
	MaxEconBanTime = 7 * 24 * 3600
	// MaxAgonesHealthPeriod is the largest agones.health_period in seconds.
	MaxAgonesHealthPeriod = 3600
)

// RegisterConfig selects master-server registration (sv_register and friends).
// Off by default, so no development or test run ever contacts a real master.
type RegisterConfig struct {
	// Enabled turns registration on (sv_register).
	Enabled bool `toml:"enabled"`
	// URL is DDNet's HTTP registration endpoint (sv_register_url).
	URL string `toml:"url"`
	// Port is the port announced to the masters; 0 = server.port (sv_external_port).
	Port int `toml:"port"`
	// UDPMasters lists legacy 0.7 masters ("host:port") for the bea2 heartbeat; empty = off.
	UDPMasters []string `toml:"udp_masters"`
	// Families are the IP families registered over, "ipv4" and/or "ipv6"
	// (sv_register "ipv4"/"ipv6"); a family server.bind cannot serve is skipped.
	Families []string `toml:"families"`
	// TW06 also announces the 0.6 protocol (tw-0.6+udp, sv_register "tw0.6"):
	// only for a server that accepts 0.6 clients. tw-0.7 is always announced.
	TW06 bool `toml:"tw06"`
}

// EconConfig selects the external console, the TCP admin console of the
// reference server (ec_* settings).
type EconConfig struct {
	// Port is the TCP port; 0 = off (ec_port).
	Port int `toml:"port"`
	// Bind is the local IP address of the econ listener (ec_bindaddr).
	Bind string `toml:"bind"`
	// Password is required to log in; must be set when Port is (ec_password).
	Password string `toml:"password"`
	// AuthTimeout is how many seconds a connection may take to log in (ec_auth_timeout).
	AuthTimeout int `toml:"auth_timeout"`
	// BanTime is how many seconds an address is banned after 3 wrong passwords; 0 = no ban (ec_bantime).
	BanTime int `toml:"ban_time"`
	// OutputLevel selects the console lines sent to econ clients, 0.7.5 meaning (ec_output_level).
	OutputLevel int `toml:"output_level"`
}

// MetricsConfig selects the HTTP endpoint with /metrics and /healthz.
type MetricsConfig struct {
	// Listen is the "address:port" to serve on; empty = off.
	Listen string `toml:"listen"`
}

// WebConfig selects the status page, its JSON API and the admin page
// (package web).
type WebConfig struct {
	// Listen is the "address:port" to serve on; empty = off. It differs
	// from metrics.listen: /healthz keeps answering while the page is
	// under load.
	Listen string `toml:"listen"`
	// AdminToken opens /admin to whoever presents it; empty = no admin page.
	AdminToken string `toml:"admin_token"`
	// PublicChat shows the chat on the public page and in the API (default true).
	PublicChat bool `toml:"public_chat"`
	// Recordings says who may list and download the finished recordings
	// of [record] dir: RecordingsOff, RecordingsAdmin (the default: only
	// after the admin login) or RecordingsPublic (anyone who reaches the page).
	Recordings string `toml:"recordings"`
	// TrustedProxies are the networks ("CIDR", or one address) of the
	// reverse proxies whose X-Forwarded-For/-Proto/-Host headers are
	// believed; empty = the TCP peer is the client.
	TrustedProxies []string `toml:"trusted_proxies"`
	// AdminHosts are the host names (no port) under which the admin page
	// is reached, besides IP addresses and localhost, which always work:
	// the name of a reverse proxy's site, or of this machine. An admin
	// request under another name is refused, so that another site's page
	// that points its name at this address (DNS rebinding) cannot spend
	// the admin's login tries.
	AdminHosts []string `toml:"admin_hosts"`
}

// Values of web.recordings.
const (
	// RecordingsOff lists and serves no recording.
	RecordingsOff = "off"
	// RecordingsAdmin lists and serves them only to a logged-in admin.
	RecordingsAdmin = "admin"
	// RecordingsPublic lists and serves them to anyone.
	RecordingsPublic = "public"
)

// MaxTrustedProxies bounds web.trusted_proxies.
const MaxTrustedProxies = 32

// MaxAdminHosts bounds web.admin_hosts.
const MaxAdminHosts = 32

// Equal reports whether two [web] sections are the same.
func (w WebConfig) Equal(o WebConfig) bool {
	return w.Listen == o.Listen && w.AdminToken == o.AdminToken && w.PublicChat == o.PublicChat &&
		w.Recordings == o.Recordings && slices.Equal(w.TrustedProxies, o.TrustedProxies) &&
		slices.Equal(w.AdminHosts, o.AdminHosts)
}

// TrustedPrefixes parses TrustedProxies (a lone address is its own
// network); validate has checked them.
func (w WebConfig) TrustedPrefixes() ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(w.TrustedProxies))
	for _, s := range w.TrustedProxies {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is neither a CIDR network nor an IP address", s)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Bounds of web.admin_token.
const (
	// MinAdminTokenLen is the shortest accepted token.
	MinAdminTokenLen = 16
	// MaxAdminTokenLen is the longest accepted token.
	MaxAdminTokenLen = 128
)

// AgonesConfig selects the Agones SDK integration (REST API of the sidecar).
type AgonesConfig struct {
	// Enabled turns the Agones integration on. The SDK sidecar's port comes
	// from the environment (AGONES_SDK_HTTP_PORT, default 9358).
	Enabled bool `toml:"enabled"`
	// HealthPeriod is the GameServer's health.periodSeconds (0 = Agones'
	// default 5); health pings go out more often, every HealthPeriod*2/5.
	HealthPeriod int `toml:"health_period"`
}

// checkBind checks an IP address to listen on ("" = every address).
func checkBind(key, v string) error {
	if _, err := netip.ParseAddr(v); v != "" && err != nil {
		return invalid(key, "%q is not an IP address (twserver resolves no host names: 127.0.0.1 for this host alone, \"\" for every address)", v)
	}
	return nil
}

// checkListen checks an "address:port" to listen on ("" = off). Host
// names and ":PORT" are refused with what to write instead.
func checkListen(key, v string) error {
	if _, err := netip.ParseAddrPort(v); v != "" && err != nil {
		return invalid(key, "%q is not IP:port (twserver resolves no host names; write \"127.0.0.1:PORT\" for this host alone, "+
			"\"0.0.0.0:PORT\" for every IPv4 address, \"[::]:PORT\" for every address)", v)
	}
	return nil
}

func defaultRegister() RegisterConfig {
	return RegisterConfig{URL: "https://master1.ddnet.org/ddnet/15/register", Families: []string{"ipv4", "ipv6"}}
}

func defaultEcon() EconConfig {
	return EconConfig{Bind: "127.0.0.1", AuthTimeout: 30, BanTime: 300, OutputLevel: 1}
}

// validateOps checks the operations sections.
func (c *Config) validateOps() error {
	r := &c.Register
	if r.Enabled {
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return invalid("register.url", "%q is not an http(s) URL", r.URL)
		}
	}
	if r.Port < 0 || r.Port > 65535 {
		return invalid("register.port", "%d is outside 0..65535", r.Port)
	}
	for _, f := range r.Families {
		if f != "ipv4" && f != "ipv6" {
			return invalid("register.families", "%q is neither \"ipv4\" nor \"ipv6\"", f)
		}
	}
	if r.Enabled && len(r.Families) == 0 {
		return invalidBecause("register.families", "register.enabled", "empty: nothing to register")
	}
	if len(r.UDPMasters) > MaxUDPMasters {
		return invalid("register.udp_masters", "%d masters, at most %d", len(r.UDPMasters), MaxUDPMasters)
	}
	e := &c.Econ
	if e.Port < 0 || e.Port > 65535 {
		return invalid("econ.port", "%d is outside 0..65535", e.Port)
	}
	if e.Port != 0 && e.Password == "" {
		return invalidBecause("econ.password", "econ.port", "must be set when econ.port is set")
	}
	if len(e.Password) > MaxPasswordLen {
		return invalid("econ.password", "longer than %d bytes", MaxPasswordLen)
	}
	if err := checkBind("econ.bind", e.Bind); err != nil {
		return err
	}
	if e.AuthTimeout < 1 || e.AuthTimeout > MaxEconAuthTimeout {
		return invalid("econ.auth_timeout", "%d is outside 1..%d seconds", e.AuthTimeout, MaxEconAuthTimeout)
	}
	if e.BanTime < 0 || e.BanTime > MaxEconBanTime {
		return invalid("econ.ban_time", "%d is outside 0..%d seconds", e.BanTime, MaxEconBanTime)
	}
	if e.OutputLevel < 0 || e.OutputLevel > 2 {
		return invalid("econ.output_level", "%d is outside 0..2", e.OutputLevel)
	}
	if p := c.Agones.HealthPeriod; p < 0 || p > MaxAgonesHealthPeriod {
		return invalid("agones.health_period", "%d is outside 0..%d seconds", p, MaxAgonesHealthPeriod)
	}
	if err := checkListen("metrics.listen", c.Metrics.Listen); err != nil {
		return err
	}
	if l := c.Web.Listen; l != "" {
		if err := checkListen("web.listen", l); err != nil {
			return err
		}
		if l == c.Metrics.Listen {
			return invalidBecause("web.listen", "metrics.listen", "%q is also metrics.listen: /healthz and /metrics need their own listener, out of reach of the page's visitors", l)
		}
	}
	if t := c.Web.AdminToken; t != "" && (len(t) < MinAdminTokenLen || len(t) > MaxAdminTokenLen) {
		return invalid("web.admin_token", "%d bytes, want %d..%d", len(t), MinAdminTokenLen, MaxAdminTokenLen)
	}
	switch c.Web.Recordings {
	case RecordingsOff, RecordingsAdmin, RecordingsPublic:
	default:
		return invalid("web.recordings", "%q is not \"off\", \"admin\" or \"public\"", c.Web.Recordings)
	}
	if c.Web.Recordings == RecordingsPublic && !c.Web.PublicChat {
		return invalidBecause("web.recordings", "web.public_chat", "\"public\" with web.public_chat = false: a recording holds every chat line sent to all")
	}
	if n := len(c.Web.TrustedProxies); n > MaxTrustedProxies {
		return invalid("web.trusted_proxies", "%d networks, at most %d", n, MaxTrustedProxies)
	}
	if _, err := c.Web.TrustedPrefixes(); err != nil {
		return invalid("web.trusted_proxies", "%v", err)
	}
	if n := len(c.Web.AdminHosts); n > MaxAdminHosts {
		return invalid("web.admin_hosts", "%d names, at most %d", n, MaxAdminHosts)
	}
	for _, h := range c.Web.AdminHosts {
		if !hostName(h) {
			return invalid("web.admin_hosts", "%q is not a host name (letters, digits, '-', '_' and dots, no port: \"game.example.org\")", h)
		}
	}
	return nil
}

// hostName reports whether s is a DNS host name as web.admin_hosts takes
// it: dot-separated labels of letters, digits, '-' and '_', at most 253
// bytes, a trailing dot allowed.
func hostName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
